package sqlite

import (
	"context"
	"database/sql"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// How the committer keeps the similar-tickets mirror (similarmirror.go).
// The triggers are temporary, so they exist on the write connection alone
// and are not part of the file: another process's writes (and this
// store's own reads) fire nothing. They note keys only; the committer
// reads the rows back once per batch, so a ticket changed by several
// writes of one batch is read once.
const mirrorTrackSQL = `
CREATE TEMP TABLE IF NOT EXISTS mirror_changes (workspace TEXT NOT NULL, number INTEGER NOT NULL);
CREATE TEMP TRIGGER IF NOT EXISTS mirror_ticket_added AFTER INSERT ON main.tickets BEGIN
	INSERT INTO mirror_changes VALUES (new.workspace, new.number);
END;
CREATE TEMP TRIGGER IF NOT EXISTS mirror_ticket_changed AFTER UPDATE OF id, workspace, number, title, status, owner ON main.tickets BEGIN
	INSERT INTO mirror_changes VALUES (old.workspace, old.number), (new.workspace, new.number);
END;
CREATE TEMP TRIGGER IF NOT EXISTS mirror_ticket_deleted AFTER DELETE ON main.tickets BEGIN
	INSERT INTO mirror_changes VALUES (old.workspace, old.number);
END;
CREATE TEMP TRIGGER IF NOT EXISTS mirror_workspace_added AFTER INSERT ON main.workspaces BEGIN
	INSERT INTO mirror_changes VALUES (new.slug, 0);
END;
CREATE TEMP TRIGGER IF NOT EXISTS mirror_workspace_changed AFTER UPDATE OF slug, ai_policy ON main.workspaces BEGIN
	INSERT INTO mirror_changes VALUES (old.slug, 0), (new.slug, 0);
END;
CREATE TEMP TRIGGER IF NOT EXISTS mirror_workspace_deleted AFTER DELETE ON main.workspaces BEGIN
	INSERT INTO mirror_changes VALUES (old.slug, 0);
END;`

// mirrorReadBackSQL answers each noted key as the batch leaves it (a
// ticket: number > 0; a workspace: 0; NULL id or policy: gone), then the
// connection's data_version (number -1), which changes only when another
// connection committed to the file.
const mirrorReadBackSQL = `SELECT c.workspace, c.number, t.id, t.title, t.status, t.owner, w.ai_policy, 0
FROM (SELECT DISTINCT workspace, number FROM temp.mirror_changes) AS c
LEFT JOIN tickets AS t ON c.number > 0 AND t.workspace = c.workspace AND t.number = c.number
LEFT JOIN workspaces AS w ON c.number = 0 AND w.slug = c.workspace
UNION ALL
SELECT '', -1, NULL, NULL, NULL, NULL, NULL, data_version FROM pragma_data_version`

// startMirror makes the write connection note changes and takes its
// data_version as the one this store's own writes keep.
func (s *Store) startMirror(ctx context.Context) {
	var version int64
	_, err := s.write.ExecContext(ctx, mirrorTrackSQL)
	if err == nil {
		err = s.write.QueryRowContext(ctx, `SELECT data_version FROM pragma_data_version`).Scan(&version)
	}
	s.dataVersion = version
	s.mirror.drop(err == nil) // without the triggers each lookup reads its workspace
}

// mirrorBatch is what a batch's read-back found.
type mirrorBatch struct {
	changes     []mirrorChange
	dataVersion int64
	err         error
}

// readMirrorChanges reads back, inside the batch's transaction before its
// COMMIT, the rows its writes noted, and clears the notes.
func (s *Store) readMirrorChanges(tx *sql.Tx) (b mirrorBatch) {
	ctx := context.Background()
	rows, err := tx.QueryContext(ctx, mirrorReadBackSQL)
	if err != nil {
		return mirrorBatch{err: err}
	}
	defer rows.Close()
	for rows.Next() {
		var c mirrorChange
		var id, title, status, owner, policy sql.NullString
		var version int64
		if err := rows.Scan(&c.workspace, &c.number, &id, &title, &status, &owner, &policy, &version); err != nil {
			return mirrorBatch{err: err}
		}
		switch {
		case c.number == -1:
			b.dataVersion = version
			continue
		case c.number == 0:
			c.gone, c.policy = !policy.Valid, board.AIPolicy(policy.String)
		default:
			c.gone = !id.Valid
			c.ticket = mirroredTicket{id: mirroredID(c.workspace, c.number, id.String), title: title.String,
				status: board.Status(status.String), owner: stringPtr(owner)}
		}
		b.changes = append(b.changes, c)
	}
	if err := rows.Err(); err != nil {
		return mirrorBatch{err: err}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM temp.mirror_changes`); err != nil {
		return mirrorBatch{err: err}
	}
	return b
}

// mirrorCommitted brings the mirror to what the batch committed, or drops
// it when it cannot know: the read-back failed (the write connection lost
// its triggers: they are made again), the COMMIT failed, or another
// connection wrote to the file since this store's last batch.
func (s *Store) mirrorCommitted(b mirrorBatch, commitErr error) {
	switch {
	case b.err != nil:
		s.startMirror(context.Background())
	case commitErr != nil:
		s.mirror.drop(true)
	case b.dataVersion != s.dataVersion:
		s.dataVersion = b.dataVersion
		s.mirror.drop(true)
	default:
		s.mirror.apply(b.changes)
	}
}
