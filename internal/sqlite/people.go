package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

const personColumns = `handle, name, role, password_hash, disabled, created_at, credentials_not_before`

func scanPerson(row scanner) (board.Person, error) {
	var p board.Person
	var created, notBefore string
	if err := row.Scan(&p.Handle, &p.Name, &p.Role, &p.PasswordHash, &p.Disabled, &created, &notBefore); err != nil {
		return p, err
	}
	var err error
	if p.CreatedAt, err = parseTime(created); err != nil {
		return p, err
	}
	if notBefore != "" {
		p.CredentialsNotBefore, err = parseTime(notBefore)
	}
	return p, err
}

// CreatePerson adds a person and their first invitation in one transaction.
func (s *Store) CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO people (`+personColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (handle) DO NOTHING`,
			p.Handle, p.Name, string(p.Role), p.PasswordHash, p.Disabled, formatTime(p.CreatedAt), notBefore(p.CredentialsNotBefore))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrExists
		}
		if inv != nil {
			return insertInvitation(ctx, tx, *inv)
		}
		return nil
	})
}

// GetPerson returns one person.
func (s *Store) GetPerson(ctx context.Context, handle string) (board.Person, error) {
	p, err := scanPerson(s.read.QueryRowContext(ctx, `SELECT `+personColumns+` FROM people WHERE handle = ?`, handle))
	if errors.Is(err, sql.ErrNoRows) {
		return p, board.ErrNotFound
	}
	return p, err
}

// ListPeople returns everyone by handle.
func (s *Store) ListPeople(ctx context.Context) ([]board.Person, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+personColumns+` FROM people ORDER BY handle`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.Person{}
	for rows.Next() {
		p, err := scanPerson(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetPersonDisabled disables or re-enables a person and records ev, in one
// transaction; disabling also voids every session made before ev.At.
func (s *Store) SetPersonDisabled(ctx context.Context, handle string, disabled bool, ev board.PersonEvent) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE people SET disabled = ?,
			credentials_not_before = CASE WHEN ? THEN ? ELSE credentials_not_before END WHERE handle = ?`,
			disabled, disabled, formatTime(ev.At), handle)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return board.ErrNotFound
		}
		return insertPersonEvent(ctx, tx, ev)
	})
}

func insertPersonEvent(ctx context.Context, tx *sql.Tx, ev board.PersonEvent) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO person_events (handle, at, type, actor) VALUES (?, ?, ?, ?)`,
		ev.Handle, formatTime(ev.At), string(ev.Type), ev.Actor)
	return err
}

// ListPersonEvents returns a person's newest account events first.
func (s *Store) ListPersonEvents(ctx context.Context, handle string, limit int) ([]board.PersonEvent, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT handle, at, type, actor FROM person_events
		WHERE handle = ? ORDER BY at DESC, rowid DESC LIMIT ?`, handle, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.PersonEvent{}
	for rows.Next() {
		var ev board.PersonEvent
		var at string
		if err := rows.Scan(&ev.Handle, &at, &ev.Type, &ev.Actor); err != nil {
			return nil, err
		}
		if ev.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// notBefore stores a zero CredentialsNotBefore as ” (nothing voided).
func notBefore(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}

func insertInvitation(ctx context.Context, tx *sql.Tx, inv board.Invitation) error {
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM people WHERE handle = ?)`, inv.Handle).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		return board.ErrNotFound
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO invitations (token_hash, handle, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (token_hash) DO NOTHING`,
		inv.TokenHash, inv.Handle, inv.CreatedBy, formatTime(inv.CreatedAt), formatTime(inv.ExpiresAt))
	return err
}

// CreateInvitation stores an invitation for an existing person.
func (s *Store) CreateInvitation(ctx context.Context, inv board.Invitation) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error { return insertInvitation(ctx, tx, inv) })
}

const invitationColumns = `token_hash, handle, created_by, created_at, expires_at`

func scanInvitation(row scanner) (board.Invitation, error) {
	var inv board.Invitation
	var created, expires string
	if err := row.Scan(&inv.TokenHash, &inv.Handle, &inv.CreatedBy, &created, &expires); err != nil {
		return inv, err
	}
	var err error
	if inv.CreatedAt, err = parseTime(created); err != nil {
		return inv, err
	}
	inv.ExpiresAt, err = parseTime(expires)
	return inv, err
}

// GetInvitation returns an unexpired invitation.
func (s *Store) GetInvitation(ctx context.Context, tokenHash string, now time.Time) (board.Invitation, error) {
	inv, err := scanInvitation(s.read.QueryRowContext(ctx, `SELECT `+invitationColumns+` FROM invitations
		WHERE token_hash = ? AND expires_at > ?`, tokenHash, formatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return inv, board.ErrNotFound
	}
	return inv, err
}

// ListInvitations returns the unexpired invitations, oldest first.
func (s *Store) ListInvitations(ctx context.Context, now time.Time) ([]board.Invitation, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+invitationColumns+` FROM invitations
		WHERE expires_at > ? ORDER BY created_at, token_hash`, formatTime(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []board.Invitation{}
	for rows.Next() {
		inv, err := scanInvitation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}

// AcceptInvitation deletes the invitation and sets the password in one
// transaction; the DELETE decides which of two concurrent calls wins.
func (s *Store) AcceptInvitation(ctx context.Context, tokenHash, passwordHash string, now time.Time) (board.Person, error) {
	var p board.Person
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// An invitation made before the person's last reset is void: it
		// neither sets a password nor is used up.
		var handle string
		err := tx.QueryRowContext(ctx, `DELETE FROM invitations WHERE token_hash = ? AND expires_at > ?
			AND created_at >= (SELECT credentials_not_before FROM people WHERE people.handle = invitations.handle) RETURNING handle`,
			tokenHash, formatTime(now)).Scan(&handle)
		if errors.Is(err, sql.ErrNoRows) {
			return board.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE people SET password_hash = ?, credentials_not_before = ? WHERE handle = ?`,
			passwordHash, formatTime(now), handle); err != nil {
			return err
		}
		// The voided invitations need not be kept.
		if _, err := tx.ExecContext(ctx, `DELETE FROM invitations WHERE handle = ? AND created_at < ?`, handle, formatTime(now)); err != nil {
			return err
		}
		if err := insertPersonEvent(ctx, tx, board.PersonEvent{Handle: handle, Type: board.PersonPasswordSet, Actor: "human:" + handle, At: now}); err != nil {
			return err
		}
		p, err = scanPerson(tx.QueryRowContext(ctx, `SELECT `+personColumns+` FROM people WHERE handle = ?`, handle))
		return err
	})
	return p, err
}

// DeleteInvitation revokes an invitation.
func (s *Store) DeleteInvitation(ctx context.Context, tokenHash string) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM invitations WHERE token_hash = ?`, tokenHash)
		return err
	})
}

// CreateSession stores a session and forgets sessions that expired.
func (s *Store) CreateSession(ctx context.Context, ses board.Session) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, formatTime(ses.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id_hash, handle, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			ses.IDHash, ses.Handle, formatTime(ses.CreatedAt), formatTime(ses.ExpiresAt))
		return err
	})
}

// GetSession returns an unexpired session.
func (s *Store) GetSession(ctx context.Context, idHash string, now time.Time) (board.Session, error) {
	var ses board.Session
	var created, expires string
	err := s.read.QueryRowContext(ctx, `SELECT id_hash, handle, created_at, expires_at FROM sessions WHERE id_hash = ? AND expires_at > ?`,
		idHash, formatTime(now)).Scan(&ses.IDHash, &ses.Handle, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return ses, board.ErrNotFound
	}
	if err != nil {
		return ses, err
	}
	if ses.CreatedAt, err = parseTime(created); err != nil {
		return ses, err
	}
	ses.ExpiresAt, err = parseTime(expires)
	return ses, err
}

// DeleteSession signs a session out.
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash = ?`, idHash)
		return err
	})
}

// ReserveSignInAttempt takes the first free slot of handle's limit slots
// in one transaction (the committer runs one at a time, so two instances on
// the file cannot both take the last one).
func (s *Store) ReserveSignInAttempt(ctx context.Context, handle string, a board.SignInAttempt, since time.Time, limit int) (int, bool, error) {
	slot, ok := -1, false
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		slot, ok = -1, false
		taken := map[int]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT slot FROM sign_in_slots WHERE handle = ? AND at > ?`, handle, formatTime(since))
		if err != nil {
			return err
		}
		for rows.Next() {
			var n int
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return err
			}
			taken[n] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for n := 0; n < limit; n++ {
			if !taken[n] {
				slot = n
				break
			}
		}
		if slot < 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sign_in_slots (handle, slot, attempt, at, keep_until) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (handle, slot) DO UPDATE SET attempt = excluded.attempt, at = excluded.at, keep_until = excluded.keep_until`,
			handle, slot, a.ID, formatTime(a.At), formatTime(a.KeepUntil))
		ok = err == nil
		return err
	})
	return slot, ok, err
}

// ReleaseSignInAttempt frees a slot that still holds attempt id.
func (s *Store) ReleaseSignInAttempt(ctx context.Context, handle string, slot int, id string) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sign_in_slots WHERE handle = ? AND slot = ? AND attempt = ?`, handle, slot, id)
		return err
	})
}

// sweepSignInSlots forgets sign-in attempts past their keep time (handles
// that nobody has, tried once, included).
func (s *Store) sweepSignInSlots(ctx context.Context, now time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sign_in_slots WHERE keep_until <= ?`, formatTime(now))
		return err
	})
}
