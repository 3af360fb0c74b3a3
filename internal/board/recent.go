package board

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Recently changed tickets: what a person attaches to a conversation (MCP
// resources/list) and what a stand-up reports. No index orders tickets by
// their last change, so the use case reads each workspace's newest events
// (an index every store keeps), takes the tickets they name newest first,
// and reads those tickets. Its cost is bounded by what it returns plus the
// events read per workspace, times the workspaces the caller may see (as
// list_workspaces reads them all).

// MaxRecentTickets bounds RecentTickets' answer.
const MaxRecentTickets = 50

// recentEvents is how many of a workspace's newest events are read: enough
// for MaxRecentTickets distinct tickets when a few of them changed often,
// small enough to stay one query on every store.
const recentEvents = 4 * MaxRecentTickets

// recentReaders is how many ticket and event reads run at once: the
// tickets are read one by one, and on DynamoDB each read is a round trip.
const recentReaders = 4

// RecentTicketsInput asks for the tickets changed most recently.
type RecentTicketsInput struct {
	// Workspace limits the answer to one workspace; "" is every workspace
	// the caller may see.
	Workspace string
	// Since keeps only changes at or after it; zero keeps any.
	Since time.Time
	// Limit is at most MaxRecentTickets; 0 means MaxRecentTickets.
	Limit int
}

// RecentTicket is a ticket with its last change.
type RecentTicket struct {
	Ticket Ticket
	// LastChange is the newest event of the ticket that was read.
	LastChange Event
	// Changes counts the ticket's events among those read (since Since).
	Changes int
}

// RecentTickets answers RecentTickets, newest change first.
type RecentTickets struct {
	Tickets []RecentTicket
	// Partial: a workspace had more events since Since than one call
	// reads, so tickets changed earlier in the window may be missing.
	Partial bool
}

// RecentTickets lists the tickets changed most recently, newest first,
// across the workspaces the caller may see (or one of them). Hidden
// workspaces do not exist for AI: one named answers as an absent one, and
// none of their tickets is listed.
func (s *Service) RecentTickets(ctx context.Context, in RecentTicketsInput) (RecentTickets, error) {
	if in.Limit == 0 {
		in.Limit = MaxRecentTickets
	}
	if in.Limit < 1 || in.Limit > MaxRecentTickets {
		return RecentTickets{}, invalid("limit %d is out of range 1-%d", in.Limit, MaxRecentTickets)
	}
	var slugs []string
	if in.Workspace != "" {
		w, err := s.visibleWorkspace(ctx, in.Workspace)
		if err != nil {
			return RecentTickets{}, err
		}
		slugs = []string{w.Slug}
	} else {
		all, err := s.ListWorkspaces(ctx)
		if err != nil {
			return RecentTickets{}, err
		}
		for _, w := range all.Workspaces {
			slugs = append(slugs, w.Slug)
		}
	}
	events := make([][]Event, len(slugs))
	err := inParallel(ctx, len(slugs), func(ctx context.Context, i int) error {
		var err error
		events[i], err = s.store.ListEvents(ctx, slugs[i], recentEvents)
		return err
	})
	if err != nil {
		return RecentTickets{}, s.storeFailure(err)
	}
	changed, partial := newestChanges(events, in.Since)
	if len(changed) > in.Limit {
		changed = changed[:in.Limit]
	}
	// The ticket reads decide the policy again: a workspace hidden since
	// the events were read drops its tickets rather than showing them.
	read := readablePolicies(PrincipalFrom(ctx))
	found := make([]bool, len(changed))
	err = inParallel(ctx, len(changed), func(ctx context.Context, i int) error {
		a, err := s.store.ReadTicket(ctx, TicketRead{ID: changed[i].LastChange.TicketID, Readable: read})
		var denied *PolicyError
		switch {
		case errors.Is(err, ErrNotFound), errors.As(err, &denied):
			return nil
		case err != nil:
			return err
		}
		changed[i].Ticket, found[i] = s.shownTicket(a.Ticket), true
		return nil
	})
	if err != nil {
		return RecentTickets{}, s.storeFailure(err)
	}
	out := RecentTickets{Tickets: []RecentTicket{}, Partial: partial}
	for i, c := range changed {
		if found[i] {
			out.Tickets = append(out.Tickets, c)
		}
	}
	return out, nil
}

// newestChanges merges the workspaces' events (each newest first) into one
// entry per ticket, newest last change first; events before since are left
// out. partial: a workspace's events all fell in the window and it had as
// many as are read, so older changes in the window were not seen.
func newestChanges(perWorkspace [][]Event, since time.Time) (changes []RecentTicket, partial bool) {
	byTicket := map[string]int{}
	for _, events := range perWorkspace {
		inWindow := 0
		for _, e := range events {
			if e.At.Before(since) {
				break
			}
			inWindow++
			if e.TicketID == "" {
				continue // a workspace's own event (its settings)
			}
			if i, ok := byTicket[e.TicketID]; ok {
				changes[i].Changes++
				continue
			}
			byTicket[e.TicketID] = len(changes)
			changes = append(changes, RecentTicket{LastChange: e, Changes: 1})
		}
		if inWindow == recentEvents && !since.IsZero() {
			partial = true
		}
	}
	slices.SortStableFunc(changes, func(a, b RecentTicket) int {
		if c := b.LastChange.At.Compare(a.LastChange.At); c != 0 {
			return c
		}
		return cmp.Compare(b.LastChange.ID, a.LastChange.ID)
	})
	return changes, partial
}

// inParallel runs fn for 0..n-1 on up to recentReaders goroutines and
// returns the first error; once one failed, the rest are not started.
func inParallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for range min(n, recentReaders) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // handed over as the failure came: not started
				}
				if err := fn(ctx, i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return firstErr
}
