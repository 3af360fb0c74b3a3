package board

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Recently changed tickets: what a person attaches to a conversation (MCP
// resources/list) and what a stand-up reports. No index orders tickets by
// their last change, so the use case reads one page of the activity feed
// (the newest recentEvents events of the workspaces the caller may read,
// merged), takes the tickets they name newest first, and reads those
// tickets. Its cost is bounded by that page and what it returns, however
// many workspaces there are.

// MaxRecentTickets bounds RecentTickets' answer.
const MaxRecentTickets = 50

// recentEvents is how many of the newest events are read, all workspaces
// together: enough for MaxRecentTickets distinct tickets when a few of
// them changed often, and one page of the feed.
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
	// Partial: more events happened since Since than one call reads, so
	// tickets changed earlier in the window may be missing.
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
	if in.Workspace != "" {
		if _, err := s.visibleWorkspace(ctx, in.Workspace); err != nil {
			return RecentTickets{}, err
		}
	}
	page, err := s.store.ListActivity(ctx, FeedQuery{Workspace: in.Workspace, Readable: readablePolicies(PrincipalFrom(ctx)),
		Since: recentSince(in.Since), Limit: recentEvents})
	var denied *PolicyError
	if in.Workspace != "" && (errors.Is(err, ErrNotFound) || errors.As(err, &denied)) {
		return RecentTickets{}, workspaceNotFound(in.Workspace) // hidden or removed since it was checked
	}
	if err != nil {
		return RecentTickets{}, s.storeFailure(err)
	}
	changed := newestChanges(page.Events)
	partial := page.More && !in.Since.IsZero()
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

// recentSince is the feed's bound for changes at or after since: the feed
// keeps only events after its Since.
func recentSince(since time.Time) time.Time {
	if since.IsZero() {
		return since
	}
	return since.Add(-time.Nanosecond)
}

// newestChanges folds the feed's events (newest first) into one entry per
// ticket, in the order of their last change, counting each ticket's
// changes; a workspace's own events (its settings) name no ticket.
func newestChanges(events []Event) []RecentTicket {
	var changes []RecentTicket
	byTicket := map[string]int{}
	for _, e := range events {
		if e.TicketID == "" {
			continue
		}
		if i, ok := byTicket[e.TicketID]; ok {
			changes[i].Changes++
			continue
		}
		byTicket[e.TicketID] = len(changes)
		changes = append(changes, RecentTicket{LastChange: e, Changes: 1})
	}
	return changes
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
