package boardfile

import (
	"errors"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// putRelation checks one relation line and puts it. Both ends must be
// tickets of the file (their lines come before it), and the relation must
// keep, with those read before it, every rule a relate keeps: a file that
// breaks one was altered, and stops at that line. A relation with an end
// whose target copy was kept (--merge=skip) is skipped with it.
func (im *loader) putRelation(l *line) error {
	r := l.Relation
	if r == nil {
		return errors.New("a relation line without its relation")
	}
	if err := board.ValidateTransferredRelation(*r); err != nil {
		return err
	}
	if !im.spaces[r.Workspace()] {
		return fmt.Errorf("relation %s: its workspace %s is not in the file", r, r.Workspace())
	}
	for _, id := range []string{r.From, r.To} {
		if !im.tickets[id] {
			return fmt.Errorf("relation %s: ticket %s is not in the file before it (a relation's tickets come first)", r, id)
		}
	}
	if err := im.relations.Add(*r); err != nil {
		return fmt.Errorf("%w: the file was altered or damaged; export it again", err)
	}
	if im.kept[r.From] || im.kept[r.To] {
		im.skip(KindRelation)
		return nil
	}
	if err := im.flush(); err != nil { // its tickets first
		return err
	}
	out, err := im.dst.PutRelation(im.ctx, *r)
	if err != nil {
		return im.storeErr(KindRelation+" "+r.String(), err)
	}
	return im.count(KindRelation, r.String(), out, im.lines.n)
}
