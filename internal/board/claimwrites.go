package board

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// claimNextCandidates is how many candidates claim_next reads at a time:
// enough that callers racing for the first ones find another in the same
// read, few enough that the read stays small.
const claimNextCandidates = 16

// ClaimTicket claims a ticket for the caller, or renews the caller's live
// claim when it presents the claim's token.
func (s *Service) ClaimTicket(ctx context.Context, in ClaimTicketInput) (ClaimResult, error) {
	if err := in.Validate(); err != nil {
		return ClaimResult{}, err
	}
	lease := time.Duration(in.LeaseSeconds) * time.Second
	w, err := s.mutate(ctx, ToolClaimTicket, in.RequestID, in.ID, in, func(p Principal, before Ticket, rec ledger.Record) (change, error) {
		now := rec.CreatedAt
		after := before
		ev := s.claimEvent(p, before, in.RequestID, now)
		var token string
		switch c := before.Claim; {
		case c.LiveAt(now) && c.tokenMatches(in.ClaimToken):
			renewed := *c
			renewed.Until = now.Add(lease)
			after.Claim = &renewed
			ev.Type = EventTicketClaimRenewed
			token = in.ClaimToken
		case c.LiveAt(now):
			return change{}, claimedElsewhere(before, p, in.ClaimToken)
		default:
			var hash string
			token, hash = newClaimToken()
			after.Claim = &Claim{By: p.Author, For: p.OnBehalfOf, Since: now, Until: now.Add(lease), TokenHash: hash}
			ev.Type = EventTicketClaimed
		}
		after.Version = before.Version + 1
		grant := after.Claim.grant(token)
		return change{after: &after, event: &ev, result: func(t Ticket, _ *Note) any {
			return ClaimResult{RequestID: in.RequestID, Ticket: &t, Claim: grant}
		}}, nil
	})
	if err != nil {
		return ClaimResult{}, err
	}
	return answer[ClaimResult](s, w)
}

// ReleaseTicket ends a claim: the holder's with its token, or anyone's
// when a person asks (breaking it). With a status it moves the ticket in
// the same write.
func (s *Service) ReleaseTicket(ctx context.Context, in ReleaseTicketInput) (ReleaseResult, error) {
	if err := in.Validate(); err != nil {
		return ReleaseResult{}, err
	}
	w, err := s.mutate(ctx, ToolReleaseTicket, in.RequestID, in.ID, in, func(p Principal, before Ticket, rec ledger.Record) (change, error) {
		now := rec.CreatedAt
		c := before.Claim
		live := c.LiveAt(now)
		// A person needs no token for their own claim: people are never
		// blocked, and their claim is theirs whatever the session.
		holder := live && (c.tokenMatches(in.ClaimToken) || (!p.IsAI() && c.heldBy(p)))
		if live && !holder && p.IsAI() {
			return change{}, claimedElsewhere(before, p, in.ClaimToken)
		}
		after := before
		after.Claim = nil
		ev := s.claimEvent(p, before, in.RequestID, now)
		ev.Type = EventTicketReleased
		if live && !holder {
			ev.Type, ev.Holder = EventTicketClaimBroken, c.holder()
		}
		if in.Status != "" && in.Status != before.Status {
			ev.From, ev.To, ev.Reason = string(before.Status), string(in.Status), in.Reason
			moveTo(&after, in.Status, now)
		}
		ch := change{result: func(t Ticket, _ *Note) any {
			return ReleaseResult{RequestID: in.RequestID, Ticket: t, Released: live}
		}}
		if before.Claim == nil && ev.To == "" {
			return ch, nil // nothing held and nothing to move: record the call only
		}
		after.Version = before.Version + 1
		ch.after = &after
		if live || ev.To != "" {
			ch.event = &ev
		}
		return ch, nil
	})
	if err != nil {
		return ReleaseResult{}, err
	}
	return answer[ReleaseResult](s, w)
}

// ClaimNext claims the first ticket ready for work that matches the
// filters: the highest priority, then the oldest. Callers racing for the
// same ticket each get another: the store's version check lets one claim
// through, and the others move on to the next candidate. When none is left
// it answers null tickets and writes nothing, so a retry asks again.
func (s *Service) ClaimNext(ctx context.Context, in ClaimNextInput) (ClaimResult, error) {
	if err := in.Validate(); err != nil {
		return ClaimResult{}, err
	}
	p := PrincipalFrom(ctx)
	rec, canonical, err := s.prepare(p, ToolClaimNext, in.RequestID, in)
	if err != nil {
		return ClaimResult{}, err
	}
	lc := ledgerCall{p: p, tool: ToolClaimNext, canonical: canonical, fingerprint: rec.Fingerprint, workspace: in.Workspace}
	lease := time.Duration(in.LeaseSeconds) * time.Second
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt-1); err != nil {
				return ClaimResult{}, s.storeFailure(err)
			}
		}
		existing, err := s.store.GetRequest(ctx, rec.Key, s.now())
		switch {
		case err == nil:
			return replayAs[ClaimResult](ctx, s, existing, lc)
		case !errors.Is(err, ErrNotFound):
			return ClaimResult{}, s.storeFailure(err)
		}
		now := s.now()
		found, err := s.store.ClaimCandidates(ctx, ClaimQuery{Workspace: in.Workspace, Status: in.Status, Tag: in.Tag, Owner: in.Owner,
			Now: now, Limit: claimNextCandidates, Readable: readablePolicies(p)})
		var denied *PolicyError
		if errors.Is(err, ErrNotFound) || errors.As(err, &denied) || (err == nil && !readable(p, found.Policy)) {
			return ClaimResult{}, workspaceNotFound(in.Workspace)
		}
		if err != nil {
			return ClaimResult{}, s.storeFailure(err)
		}
		if err := writeDenied(p, in.Workspace, found.Policy); err != nil {
			return ClaimResult{}, err
		}
		if len(found.Tickets) == 0 {
			return ClaimResult{RequestID: in.RequestID}, nil
		}
		for _, t := range claimOrder(found.Tickets) {
			res, done, err := s.claimCandidate(ctx, p, rec, lc, t, in.RequestID, lease)
			if done || err != nil {
				return res, err
			}
		}
		// Every candidate went to someone else meanwhile: read again.
	}
	return ClaimResult{}, Errorf(CodeConflict, "workspace '%s' has many agents claiming at once and this call kept losing; nothing was claimed by it, retry with the same request_id", in.Workspace)
}

// claimOrder is the order one call tries the candidates in: the first
// (the most urgent, oldest), then the others from a random one on. Alone,
// a caller gets the first; callers racing for it all try it, one wins,
// and the losers spread over the rest instead of all losing the second
// too, and the third.
func claimOrder(ts []Ticket) []Ticket {
	if len(ts) < 3 {
		return ts
	}
	rest := ts[1:]
	k := rand.IntN(len(rest))
	return append(append([]Ticket{ts[0]}, rest[k:]...), rest[:k]...)
}

// claimCandidate tries to claim t for p. done is false when t went to
// someone else first: the caller tries the next candidate.
func (s *Service) claimCandidate(ctx context.Context, p Principal, rec ledger.Record, lc ledgerCall, t Ticket, requestID string, lease time.Duration) (ClaimResult, bool, error) {
	release, err := s.locks.take(ctx, t.ID)
	if err != nil {
		return ClaimResult{}, true, s.storeFailure(err)
	}
	defer release()
	now := s.now()
	if !t.FreeAt(now) {
		return ClaimResult{}, false, nil
	}
	rec.CreatedAt, rec.ExpiresAt = now, now.Add(s.retention)
	token, hash := newClaimToken()
	after := t
	after.Claim = &Claim{By: p.Author, For: p.OnBehalfOf, Since: now, Until: now.Add(lease), TokenHash: hash}
	after.Version = t.Version + 1
	ev := s.claimEvent(p, t, requestID, now)
	ev.Type = EventTicketClaimed
	shown := s.shownTicket(after)
	built := ClaimResult{RequestID: requestID, Ticket: &shown, Claim: after.Claim.grant(token)}
	result, err := json.Marshal(built)
	if err != nil {
		return ClaimResult{}, true, s.storeFailure(err)
	}
	rec.Result = result
	var allowed []AIPolicy
	if p.IsAI() {
		allowed = []AIPolicy{PolicyReadWrite}
	}
	stored, err := s.store.SaveTicket(ctx, SaveTx{Request: rec, Before: t, After: &after, Event: &ev, AllowedPolicies: allowed})
	var exists *ledger.ExistsError
	var denied *PolicyError
	switch {
	case errors.Is(err, ErrVersionConflict), errors.Is(err, ErrNotFound):
		return ClaimResult{}, false, nil
	case errors.As(err, &exists):
		res, err := replayAs[ClaimResult](ctx, s, exists.Record, lc)
		return res, true, err
	case errors.As(err, &denied):
		if denied.Policy == PolicyHidden {
			return ClaimResult{}, true, workspaceNotFound(t.Workspace)
		}
		return ClaimResult{}, true, writeDenied(p, t.Workspace, denied.Policy)
	case err != nil:
		return ClaimResult{}, true, s.storeFailure(err)
	}
	res, err := committed(s, stored.Result, built, result)
	return res, true, err
}

// claimEvent is the history event of a claim write by p on t; the caller
// sets its type.
func (s *Service) claimEvent(p Principal, t Ticket, requestID string, at time.Time) Event {
	return Event{ID: s.newID(), Workspace: t.Workspace, TicketID: t.ID, Author: p.Author, OnBehalfOf: p.OnBehalfOf,
		Source: p.Source, RequestID: requestID, At: at}
}

// grant is the claim as its holder receives it.
func (c *Claim) grant(token string) *ClaimGrant {
	return &ClaimGrant{By: c.By, For: c.For, Since: c.Since, Until: c.Until, Token: token}
}

// claimedElsewhere refuses a write to a ticket another caller holds.
func claimedElsewhere(t Ticket, p Principal, token string) error {
	c := t.Claim
	until := c.Until.UTC().Format(time.RFC3339)
	if token != "" {
		return Errorf(CodeConflict, "ticket '%s' is claimed by %s until %s, and the claim_token you passed is not that claim's; nothing was written. Pass the token your claim_ticket or claim_next answered, or take another ticket with claim_next", t.ID, c.holder(), until)
	}
	if !p.IsAI() {
		return Errorf(CodeConflict, "ticket '%s' is claimed by %s until %s; nothing was written. To take it over, break the claim with release_ticket (no claim_token needed for a person), then claim it", t.ID, c.holder(), until)
	}
	if c.heldBy(p) {
		return Errorf(CodeConflict, "ticket '%s' is claimed by %s (you, in another session or before) until %s; nothing was written. Pass that claim's claim_token, or take another ticket with claim_next, or wait until the claim ends", t.ID, c.holder(), until)
	}
	return Errorf(CodeConflict, "ticket '%s' is claimed by %s until %s; nothing was written. Take another ticket with claim_next, add a note to ask them, or wait until the claim ends", t.ID, c.holder(), until)
}

// guardClaim applies a live claim on before to an update or move by p:
// agents without the claim's token are refused; a person is never refused,
// and ends an agent's claim when ends says the write does (a move, or
// assigning the ticket to themselves). It returns the claim the write ends,
// or nil.
func guardClaim(p Principal, before Ticket, token string, now time.Time, ends bool) (*Claim, error) {
	c := before.Claim
	if !c.LiveAt(now) || c.tokenMatches(token) {
		return nil, nil
	}
	if p.IsAI() {
		return nil, claimedElsewhere(before, p, token)
	}
	if ends && !IsPersonAuthor(c.By) {
		return c, nil
	}
	return nil, nil
}

// IsPersonAuthor reports whether author names a person (human or
// human:<handle>) rather than an agent.
func IsPersonAuthor(author string) bool { return !(Principal{Author: author}).IsAI() }

// moveTo sets t's status and completed_at as a move to st does.
func moveTo(t *Ticket, st Status, at time.Time) {
	from := t.Status
	t.Status = st
	t.UpdatedAt = at
	switch {
	case st == StatusDone:
		done := at
		t.CompletedAt = &done
	case from == StatusDone:
		t.CompletedAt = nil
	}
}
