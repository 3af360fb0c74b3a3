package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// noteColumns are a note's columns in the order scanNote reads them. Notes
// are keyed by id alone, so every note id ever handed out (a bare UUID from
// before ids named their ticket, or one that does) is one primary-key read.
const noteColumns = `id, ticket_id, body, author, source, created_at, on_behalf_of, edited_at, redacted`

// scanNote reads noteColumns, then any extra columns into extra.
func scanNote(row scanner, extra ...any) (board.Note, error) {
	var n board.Note
	var created string
	var onBehalfOf, edited, redacted sql.NullString
	dest := append([]any{&n.ID, &n.TicketID, &n.Body, &n.Author, &n.Source, &created, &onBehalfOf, &edited, &redacted}, extra...)
	if err := row.Scan(dest...); err != nil {
		return n, err
	}
	var err error
	if n.CreatedAt, err = parseTime(created); err != nil {
		return n, err
	}
	n.OnBehalfOf = onBehalfOf.String
	if edited.Valid {
		at, err := parseTime(edited.String)
		if err != nil {
			return n, err
		}
		n.EditedAt = &at
	}
	if redacted.Valid {
		n.Redacted = &board.NoteRedaction{}
		if err := json.Unmarshal([]byte(redacted.String), n.Redacted); err != nil {
			return n, err
		}
	}
	return n, nil
}

// noteArgs are the values of noteColumns.
func noteArgs(n board.Note) []any {
	var onBehalfOf, redacted sql.NullString
	if n.OnBehalfOf != "" {
		onBehalfOf = sql.NullString{String: n.OnBehalfOf, Valid: true}
	}
	if n.Redacted != nil {
		redacted = sql.NullString{String: mustJSON(n.Redacted), Valid: true}
	}
	return []any{n.ID, n.TicketID, n.Body, n.Author, string(n.Source), formatTime(n.CreatedAt), onBehalfOf, nullTime(n.EditedAt), redacted}
}

func insertNote(ctx context.Context, tx *sql.Tx, n board.Note) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO notes (`+noteColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, noteArgs(n)...)
	return err
}

// updateNote writes an edited note's text, edited_at and redaction; its
// id, ticket, author and creation never change.
func updateNote(ctx context.Context, tx *sql.Tx, n board.Note) error {
	a := noteArgs(n)
	res, err := tx.ExecContext(ctx, `UPDATE notes SET body = ?, edited_at = ?, redacted = ? WHERE id = ? AND ticket_id = ?`,
		n.Body, a[7], a[8], n.ID, n.TicketID)
	if err != nil {
		return err
	}
	if rows, err := res.RowsAffected(); err != nil {
		return err
	} else if rows != 1 {
		return board.ErrNotFound
	}
	return nil
}

// GetNote reads one note by its primary key, whatever the form of its id.
func (s *Store) GetNote(ctx context.Context, ref board.NoteRef) (board.Note, error) {
	n, err := scanNote(s.read.QueryRowContext(ctx, `SELECT `+noteColumns+` FROM notes WHERE id = ?`, ref.ID))
	if errors.Is(err, sql.ErrNoRows) || err == nil && ref.TicketID != "" && n.TicketID != ref.TicketID {
		return board.Note{}, board.ErrNotFound
	}
	return n, err
}

// migrateNoteEdits (7 → 8) keeps whom an agent wrote a note for, when a
// note was last edited and an admin's redaction. It adds only what is
// missing, so a file whose version was set back runs it again unharmed.
func migrateNoteEdits(ctx context.Context, tx *sql.Tx) error {
	for _, c := range []string{"on_behalf_of", "edited_at", "redacted"} {
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('notes') WHERE name = ?`, c).Scan(&have); err != nil {
			return err
		}
		if have == 0 {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE notes ADD COLUMN `+c+` TEXT`); err != nil {
				return err
			}
		}
	}
	return nil
}
