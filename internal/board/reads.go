package board

import (
	"context"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

const (
	summaryWaiting = 20
	summaryDue     = 20
	summaryEvents  = 20
	dueSoonDays    = 7
)

// ListWorkspaces lists what the caller may see; hidden ones are absent for AI.
func (s *Service) ListWorkspaces(ctx context.Context) (WorkspacesResult, error) {
	p := PrincipalFrom(ctx)
	all, err := s.store.ListWorkspaces(ctx)
	if err != nil {
		return WorkspacesResult{}, s.storeFailure(err)
	}
	out := WorkspacesResult{Workspaces: []Workspace{}}
	for _, w := range all {
		if readable(p, w.AIPolicy) {
			w.Counts = fullCounts(w.Counts)
			out.Workspaces = append(out.Workspaces, w)
		}
	}
	return out, nil
}

// fullCounts lists every status, zero included, so callers need no defaults.
func fullCounts(c map[Status]int) map[Status]int {
	out := make(map[Status]int, len(Statuses))
	for _, st := range Statuses {
		out[st] = c[st]
	}
	return out
}

// visibleWorkspace reads a workspace, hiding it from AI when hidden.
func (s *Service) visibleWorkspace(ctx context.Context, slug string) (Workspace, error) {
	if err := ValidateSlug(slug); err != nil {
		return Workspace{}, err
	}
	w, err := s.store.GetWorkspace(ctx, slug)
	if errors.Is(err, ErrNotFound) || (err == nil && !readable(PrincipalFrom(ctx), w.AIPolicy)) {
		return Workspace{}, workspaceNotFound(slug)
	}
	if err != nil {
		return Workspace{}, s.storeFailure(err)
	}
	w.Counts = fullCounts(w.Counts)
	return w, nil
}

// GetWorkspaceSummary is the overview to read before writing. Its due_soon
// lists open tickets (any status but done) due within dueSoonDays, overdue
// included, earliest due first.
func (s *Service) GetWorkspaceSummary(ctx context.Context, in WorkspaceInput) (WorkspaceSummary, error) {
	if err := ValidateSlug(in.Workspace); err != nil {
		return WorkspaceSummary{}, err
	}
	r, err := s.store.ReadSummary(ctx, SummaryQuery{
		Workspace: in.Workspace,
		Readable:  readablePolicies(PrincipalFrom(ctx)),
		Waiting:   summaryWaiting,
		DueBy:     s.now().AddDate(0, 0, dueSoonDays).Format(time.DateOnly),
		Due:       summaryDue,
		Events:    summaryEvents,
		MaxBytes:  answerJSONBound / 2, // each of its two ticket lists
	})
	var denied *PolicyError
	if errors.Is(err, ErrNotFound) || errors.As(err, &denied) {
		return WorkspaceSummary{}, workspaceNotFound(in.Workspace)
	}
	if err != nil {
		return WorkspaceSummary{}, s.storeFailure(err)
	}
	w := r.Workspace
	w.Counts = fullCounts(w.Counts)
	out := WorkspaceSummary{
		Workspace:    w,
		Counts:       w.Counts,
		WaitingAI:    s.shownTickets(r.WaitingAI),
		DueSoon:      s.shownTickets(r.DueSoon),
		RecentEvents: nonNilEvents(r.Events),
	}
	fitEstimated(&out)
	return out, nil
}

// shownTickets is shownTicket for each ticket of a list.
func (s *Service) shownTickets(ts []Ticket) []Ticket {
	out := make([]Ticket, len(ts))
	for i, t := range ts {
		out[i] = s.shownTicket(t)
	}
	return out
}

// shownTicket is a ticket as every answer shows it: with the fields computed
// on read (url) filled in and its lists non-nil, so that clients see [] and
// not null.
func (s *Service) shownTicket(t Ticket) Ticket {
	t.URL = s.ticketURL(t.ID)
	if t.Tags == nil {
		t.Tags = []string{}
	}
	if t.Links == nil {
		t.Links = []Link{}
	}
	if !t.Claim.LiveAt(s.now()) {
		t.Claim = nil // a lease that ran out holds nothing
	} else {
		shown := *t.Claim
		shown.TokenHash = ""
		t.Claim = &shown
	}
	return t
}

// nonNilEvents returns ev, or an empty list for nil, for the same reason.
func nonNilEvents(ev []Event) []Event {
	if ev == nil {
		return []Event{}
	}
	return ev
}

// ListTickets returns one page of a workspace's tickets, newest first.
func (s *Service) ListTickets(ctx context.Context, in ListTicketsInput) (TicketList, error) {
	if err := in.Validate(); err != nil {
		return TicketList{}, err
	}
	if in.Query != "" {
		if _, err := ParseSearch(in.Query); err != nil {
			return TicketList{}, inField("query", err)
		}
	}
	q := TicketQuery{Workspace: in.Workspace, Status: in.Status, Owner: in.Owner, Tag: in.Tag, Claimed: in.Claimed, Ready: in.Ready, Parent: in.Parent, Now: s.now(), Query: in.Query, Limit: in.Limit,
		Readable: readablePolicies(PrincipalFrom(ctx)), MaxBytes: answerJSONBound - shellOverhead, MaxScan: DefaultScan}
	var seal *cursorSeal // read (once per process) only for a page that takes or hands out a cursor
	if in.Cursor != "" {
		var err error
		if seal, err = s.cursors(ctx); err != nil {
			return TicketList{}, err
		}
		before, tier, err := decodeCursor(seal, in.Cursor, q)
		if err != nil {
			return TicketList{}, err
		}
		q.Before, q.Tier = before, tier
	}
	page, err := s.store.ListTickets(ctx, q)
	var denied *PolicyError
	if errors.Is(err, ErrNotFound) || errors.As(err, &denied) || (err == nil && !readable(PrincipalFrom(ctx), page.Policy)) {
		return TicketList{}, workspaceNotFound(in.Workspace)
	}
	if err != nil {
		return TicketList{}, s.storeFailure(err)
	}
	out := TicketList{Tickets: s.shownTickets(page.Tickets), Partial: page.Partial, Total: listTotal(q, page.Counts), query: q, seal: seal}
	next := page.ContinueBelow()
	if seal == nil && (next > 0 || EstimatedSize(&out) > answerJSONBound/4) {
		if seal, err = s.cursors(ctx); err != nil {
			return TicketList{}, err
		}
		out.seal = seal
	}
	if next > 0 {
		c := encodeCursor(seal, next, page.NextTier, q)
		out.NextCursor = &c
	}
	fitEstimated(&out)
	return out, nil
}

// listTotal is a list's total when the workspace's kept counts answer it:
// the whole workspace or one status. Any other filter would need a count
// of its own, so the answer says nothing rather than pay for one.
func listTotal(q TicketQuery, counts map[Status]int) *int {
	if counts == nil || q.Owner != "" || q.Tag != "" || q.Query != "" || q.Claimed != nil || q.Ready || q.Parent != "" {
		return nil
	}
	n := 0
	for st, c := range counts {
		if q.Status == "" || st == q.Status {
			n += c
		}
	}
	return &n
}

// GetTicket returns a ticket with its newest notes and history events, and
// cursors to the older ones. The store decides the policy before it reads
// notes and history, so a ticket hidden from the caller costs what an
// absent one costs.
func (s *Service) GetTicket(ctx context.Context, in TicketIDInput) (TicketDetail, error) {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return TicketDetail{}, err
	}
	a, err := s.store.ReadTicket(ctx, TicketRead{ID: in.ID, Notes: DetailNotes, Events: DetailEvents,
		Readable: readablePolicies(PrincipalFrom(ctx))})
	if err == nil && !readable(PrincipalFrom(ctx), a.Policy) {
		err = &PolicyError{Policy: a.Policy} // a store that did not check: answer the same
	}
	if err := s.activityFailure(err, in.ID); err != nil {
		return TicketDetail{}, err
	}
	d := TicketDetail{Ticket: s.shownTicket(a.Ticket), Notes: nonNil(a.Notes), History: nonNilEvents(a.History)}
	if d.TicketRelations, err = s.ticketRelations(ctx, a.Ticket); err != nil {
		return TicketDetail{}, err
	}
	// Most details hand out no cursor: the key is read (once per process)
	// only for one that does, or that is large enough to be cut to size.
	if (a.MoreNotes && len(a.Notes) > 0) || (a.MoreHistory && len(a.History) > 0) || EstimatedSize(&d) > answerJSONBound/4 {
		if d.seal, err = s.cursors(ctx); err != nil {
			return TicketDetail{}, err
		}
	}
	seal := d.seal
	if a.MoreNotes && len(a.Notes) > 0 {
		d.NotesCursor = encodeActivityCursor(seal, in.ID, activityNotes, notePosition(a.Notes[0]))
	}
	if a.MoreHistory && len(a.History) > 0 {
		d.HistoryCursor = encodeActivityCursor(seal, in.ID, activityHistory, eventPosition(a.History[0]))
	}
	fitEstimated(&d)
	return d, nil
}

// FindRequest tells what became of an earlier write of this caller.
func (s *Service) FindRequest(ctx context.Context, in FindRequestInput) (RequestLookup, error) {
	if err := ledger.ValidateRequestID(in.RequestID); err != nil {
		return RequestLookup{}, Errorf(CodeInvalid, "%s", err.Error())
	}
	p := PrincipalFrom(ctx)
	if p.Author == "" {
		// Without an author nothing can have been written under this caller.
		return RequestLookup{Lookup: ledger.Describe(in.RequestID, nil, s.now())}, nil
	}
	now := s.now()
	rec, err := s.store.GetRequest(ctx, RequestKey(p, in.RequestID), now)
	if errors.Is(err, ErrNotFound) {
		return RequestLookup{Lookup: ledger.Describe(in.RequestID, nil, now)}, nil
	}
	if err != nil {
		return RequestLookup{}, s.storeFailure(err)
	}
	// A record of a workspace hidden from the caller since is as unknown
	// as the workspace (hidden.go).
	hidden, err := s.hiddenRecord(ctx, p, rec, "", "")
	if err != nil {
		return RequestLookup{}, s.storeFailure(err)
	}
	if hidden {
		return RequestLookup{Lookup: ledger.Describe(in.RequestID, nil, now)}, nil
	}
	return s.withTask(ctx, RequestLookup{Lookup: ledger.Describe(in.RequestID, &rec, now)}, rec), nil
}
