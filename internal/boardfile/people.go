package boardfile

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// People and tokens move through the store's own writes (CreatePerson,
// CreateToken), which store every field given, hashes included.
//
// A token or a grant is a credential of its person, so it goes in only for
// a person this file wrote, or one the target holds exactly as the file
// has them (an earlier run of the import wrote them). A person of the
// target the file does not match (kept under --merge=skip) keeps every
// credential they had and gains none from the file: their tokens' and
// grants' lines are skipped and listed. A token or grant whose person has
// no line before it is no export's: it stops the import.

var tokenHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// maxPasswordHash bounds a moved password hash: an argon2id hash in its
// PHC form, with any parameters, is well under it.
const maxPasswordHash = 256

func (im *loader) putPerson(l *line) error {
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
	if len(p.PasswordHash) > maxPasswordHash || strings.ContainsFunc(p.PasswordHash, func(c rune) bool { return c <= ' ' || c > '~' }) {
		// An argon2id hash in its PHC form is about 100 characters.
		return fmt.Errorf("person %s: password_hash is not a password hash (printable, at most %d characters)", p.Handle, maxPasswordHash)
	}
	if im.filePeople[p.Handle] {
		return fmt.Errorf("person %s is in the file twice", p.Handle)
	}
	im.filePeople[p.Handle] = true
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
		im.ownPeople[p.Handle] = true
		return im.count(KindPerson, p.Handle, board.Added, im.lines.n)
	case err != nil:
		return fmt.Errorf("person %s: %w", p.Handle, err)
	}
	same := have.Name == p.Name && have.Role == p.Role && have.PasswordHash == p.PasswordHash &&
		have.Disabled == p.Disabled && have.CreatedAt.Equal(p.CreatedAt) && have.CredentialsNotBefore.Equal(p.CredentialsNotBefore)
	im.ownPeople[p.Handle] = same
	return im.count(KindPerson, p.Handle, outcomeOf(same), im.lines.n)
}

func (im *loader) putToken(l *line) error {
	if l.Token == nil {
		return errors.New("a token line without the token")
	}
	t := l.Token.token()
	if err := validateToken(t); err != nil {
		return err
	}
	if owned, err := im.ownedBy(KindToken, t.ID, t.Handle); !owned {
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
		return im.count(KindToken, t.ID, board.Added, im.lines.n)
	case err != nil:
		return fmt.Errorf("token %s: %w", t.ID, err)
	}
	same := have.Hash == t.Hash && have.Handle == t.Handle && have.Agent == t.Agent && have.Label == t.Label &&
		have.CreatedBy == t.CreatedBy && have.CreatedAt.Equal(t.CreatedAt) && sameTime(have.LastUsedAt, t.LastUsedAt) &&
		sameTime(have.RevokedAt, t.RevokedAt)
	return im.count(KindToken, t.ID, outcomeOf(same), im.lines.n)
}

// validateToken holds a moved token to what the token commands make: an
// id that is its hash's first 16 hex digits, an agent's name as tokens
// create checks it, a label of one line.
func validateToken(t board.APIToken) error {
	if !tokenHash.MatchString(t.Hash) || t.ID != t.Hash[:16] {
		return fmt.Errorf("token %q: a hex SHA-256 hash and an id of its first 16 digits are required (an export holds hashes, never secrets)", clipped(t.ID))
	}
	if err := board.ValidateHandle(t.Handle); err != nil {
		return err
	}
	if t.Agent != "" {
		if name, err := board.ValidateAgentName(t.Agent); err != nil || name != t.Agent {
			return fmt.Errorf("token %s: agent %q is not an agent's name (1-64 letters, digits, '.', '_' or '-', without ai:)", t.ID, clipped(t.Agent))
		}
	}
	if err := board.ValidateTokenLabel(t.Label); err != nil {
		return fmt.Errorf("token %s: %w", t.ID, err)
	}
	if t.CreatedBy == "" || len(t.CreatedBy) > 200 || strings.ContainsFunc(t.CreatedBy, unicode.IsControl) {
		return fmt.Errorf("token %s: created_by must be the author who made it (one line, at most 200 bytes)", t.ID)
	}
	if t.CreatedAt.IsZero() {
		return fmt.Errorf("token %s has no created_at", t.ID)
	}
	return nil
}

// ownedBy says whether a credential of handle (a token or a grant, kind
// and id) may be put: its person is one this file wrote or found as it
// has them. A kept person's credential is skipped and listed (false, nil);
// one whose person has no line before it stops the import.
func (im *loader) ownedBy(kind, id, handle string) (bool, error) {
	if im.ownPeople[handle] {
		return true, nil
	}
	if !im.filePeople[handle] {
		return false, fmt.Errorf("%s %s: its person %s has no line before it in this file (an export lists every person before their tokens and grants)", kind, id, handle)
	}
	im.skip(kind)
	if im.opts.Collisions != nil {
		fmt.Fprintf(im.opts.Collisions, "line %d: %s %s of %s skipped: the target's %s was kept, and gains no credential from the file\n", im.lines.n, kind, id, handle, handle)
	}
	return false, nil
}

func clipped(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func outcomeOf(same bool) board.PutOutcome {
	if same {
		return board.AlreadyThere
	}
	return board.Collision
}

func sameTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
