package sqlite

import (
	"context"
	"database/sql"
)

// secretSchema holds the server's own secrets (board.SecretStore). It is
// created where missing on every open, as the people's tables are.
const secretSchema = `
CREATE TABLE IF NOT EXISTS server_secrets (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
);
`

// ServerSecret inserts candidate unless a secret of that name exists, then
// reads back what is stored, in one write transaction: the first writer
// wins, and every process on the file reads the same bytes.
func (s *Store) ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	var stored []byte
	if err := s.read.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name = ?`, name).Scan(&stored); err == nil {
		return stored, nil // the usual case: made long ago
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, candidate); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name = ?`, name).Scan(&stored)
	})
	return stored, err
}
