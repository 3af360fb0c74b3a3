package boardfile

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// People and tokens move through the store's own writes (CreatePerson,
// CreateToken), which store every field given, hashes included.

var tokenHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (im *importer) putPerson(l *line) error {
	if l.Person == nil {
		return errors.New("a person line without the person")
	}
	p := l.Person.person()
	if err := board.ValidateHandle(p.Handle); err != nil {
		return err
	}
	if err := board.ValidateDisplayName(p.Name); err != nil {
		return err
	}
	if err := board.ValidateRole(p.Role); err != nil {
		return err
	}
	have, err := im.dst.GetPerson(im.ctx, p.Handle)
	switch {
	case errors.Is(err, board.ErrNotFound):
		err = im.dst.CreatePerson(im.ctx, p, nil)
		if errors.Is(err, board.ErrExists) {
			return fmt.Errorf("person %s was added meanwhile by someone else; run the import again", p.Handle)
		}
		if err != nil {
			return fmt.Errorf("person %s: %w", p.Handle, err)
		}
		return im.count(KindPerson, p.Handle, board.Written, im.lines.n)
	case err != nil:
		return fmt.Errorf("person %s: %w", p.Handle, err)
	}
	same := have.Name == p.Name && have.Role == p.Role && have.PasswordHash == p.PasswordHash &&
		have.Disabled == p.Disabled && have.CreatedAt.Equal(p.CreatedAt) && have.CredentialsNotBefore.Equal(p.CredentialsNotBefore)
	return im.count(KindPerson, p.Handle, outcomeOf(same), im.lines.n)
}

func (im *importer) putToken(l *line) error {
	if l.Token == nil {
		return errors.New("a token line without the token")
	}
	t := l.Token.token()
	if t.ID == "" || !tokenHash.MatchString(t.Hash) {
		return fmt.Errorf("token %q: an id and a hex SHA-256 hash are required (an export holds hashes, never secrets)", t.ID)
	}
	if err := board.ValidateHandle(t.Handle); err != nil {
		return err
	}
	have, err := im.dst.GetToken(im.ctx, t.ID)
	switch {
	case errors.Is(err, board.ErrNotFound):
		if err := im.dst.CreateToken(im.ctx, t); err != nil {
			if errors.Is(err, board.ErrNotFound) {
				return fmt.Errorf("token %s: its person %s is not in the target store (people come before tokens)", t.ID, t.Handle)
			}
			return fmt.Errorf("token %s: %w", t.ID, err)
		}
		return im.count(KindToken, t.ID, board.Written, im.lines.n)
	case err != nil:
		return fmt.Errorf("token %s: %w", t.ID, err)
	}
	same := have.Hash == t.Hash && have.Handle == t.Handle && have.Agent == t.Agent && have.Label == t.Label &&
		have.CreatedBy == t.CreatedBy && have.CreatedAt.Equal(t.CreatedAt) && sameTime(have.LastUsedAt, t.LastUsedAt) &&
		sameTime(have.RevokedAt, t.RevokedAt)
	return im.count(KindToken, t.ID, outcomeOf(same), im.lines.n)
}

func outcomeOf(same bool) board.Outcome {
	if same {
		return board.AlreadyThere
	}
	return board.Collision
}

func sameTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
