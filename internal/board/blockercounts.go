package board

import (
	"context"
	"errors"
)

// openBlockerCounter is a store whose listed tickets carry OpenBlockers,
// so a 0 there means none.
type openBlockerCounter interface{ CountsOpenBlockers() bool }

// OpenBlockerCounts counts, for each ticket given (tickets a list just
// answered, so already readable by the caller), the tickets that block it
// and are not done: the board's "blocked by N". Done tickets are skipped
// (nothing waits on them any more). A store that keeps the count with the
// ticket (DynamoDB) answers it without a read; otherwise one bounded
// relations read per ticket (at most MaxRelations+1 rows), so the cost
// follows the cards shown. A ticket deleted since it was listed counts
// none.
func (s *Service) OpenBlockerCounts(ctx context.Context, tickets []Ticket) (map[string]int, error) {
	out := map[string]int{}
	counter, ok := s.store.(openBlockerCounter)
	kept := ok && counter.CountsOpenBlockers()
	for _, t := range tickets {
		if t.Status == StatusDone {
			continue
		}
		if kept || t.OpenBlockers > 0 {
			if t.OpenBlockers > 0 {
				out[t.ID] = t.OpenBlockers
			}
			continue
		}
		r, err := s.store.RelationsOf(ctx, t)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return nil, s.storeFailure(err)
		}
		n := 0
		for _, b := range r.BlockedBy {
			if b.Status != StatusDone {
				n++
			}
		}
		if n > 0 {
			out[t.ID] = n
		}
	}
	return out, nil
}
