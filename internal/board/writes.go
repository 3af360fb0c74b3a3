package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Tool names double as ledger tool names, so a request_id reused across
// surfaces (MCP and REST) is judged the same way.
const (
	ToolCreateTicket = "create_ticket"
	ToolUpdateTicket = "update_ticket"
	ToolMoveTicket   = "move_ticket"
	ToolAddNote      = "add_note"
	ToolEditNote     = "edit_note"
	ToolRedactNote   = "redact_note"
)

// CreateTicket creates a ticket exactly once per request_id (without the
// similar tickets: CreateTicketFindingSimilar answers those too).
func (s *Service) CreateTicket(ctx context.Context, in CreateTicketInput) (TicketResult, error) {
	c, err := s.createTicket(ctx, in, false)
	return c.TicketResult, err
}

// createTicket creates a ticket exactly once per request_id. With
// findSimilar the similar tickets are looked up once, before the write
// (CreateTx.LookUp), and stored with the result in the request record, so
// a replay answers exactly what the first answer said, from the record
// alone. Without it the stored result is the TicketResult alone.
func (s *Service) createTicket(ctx context.Context, in CreateTicketInput, findSimilar bool) (CreatedTicket, error) {
	if err := in.Validate(); err != nil {
		return CreatedTicket{}, err
	}
	p := PrincipalFrom(ctx)
	rec, canonical, err := s.prepare(p, ToolCreateTicket, in.RequestID, in)
	if err != nil {
		return CreatedTicket{}, err
	}
	var allowed []AIPolicy
	if p.IsAI() {
		allowed = []AIPolicy{PolicyReadWrite}
	}
	now := rec.CreatedAt
	// Mentions are resolved once, before the store builds the ticket (a
	// build may run again, inside the store's write).
	mentioned := s.knownMentions(ctx, ParseMentions(in.Body))
	policy := s.policyForInbox(ctx, in.Workspace, mentioned, in.Owner)
	// The answer Build made last and its encoding: a store commits what the
	// last Build returned, so the committed result needs no decoding back.
	var built CreatedTicket
	var builtJSON []byte
	var similar []SimilarTicket
	var lookedUp sync.Once
	lookUp := func(ctx context.Context) {
		lookedUp.Do(func() { similar = s.similarForCreate(ctx, in.Workspace, in.Title) })
	}
	tx := CreateTx{
		Request:         rec,
		Workspace:       in.Workspace,
		AllowedPolicies: allowed,
		Build: func(number int64) (CreatePlan, error) {
			t, ev := s.newTicket(in.Workspace, number, in.NewTicket, p, p.Source, in.RequestID, now)
			ev.Mentions = mentioned
			inbox := s.addressInbox(ctx, p, ev, nil, t, policy)
			ev.Inbox = addressesOf(inbox)
			built = CreatedTicket{TicketResult: TicketResult{RequestID: in.RequestID, Ticket: t}}
			var result []byte
			var err error
			if findSimilar {
				lookUp(ctx) // once: a store that builds again keeps what was found
				built.Similar = similar
				result, err = json.Marshal(built)
			} else {
				result, err = json.Marshal(built.TicketResult)
			}
			builtJSON = result
			return CreatePlan{Ticket: t, Event: ev, Result: result, Inbox: inbox}, err
		},
	}
	if findSimilar {
		tx.LookUp = lookUp
	}
	stored, err := s.store.CreateTicket(ctx, tx)
	var exists *ledger.ExistsError
	var denied *PolicyError
	var out CreatedTicket
	switch {
	case errors.As(err, &exists):
		out, err = replayAs[CreatedTicket](ctx, s, exists.Record, ledgerCall{p: p, tool: ToolCreateTicket, canonical: canonical,
			fingerprint: rec.Fingerprint, workspace: in.Workspace})
	case errors.Is(err, ErrNotFound):
		return CreatedTicket{}, workspaceNotFound(in.Workspace)
	case errors.As(err, &denied):
		return CreatedTicket{}, writeDenied(p, in.Workspace, denied.Policy)
	case err != nil:
		return CreatedTicket{}, s.storeFailure(err)
	default:
		out, err = committed(s, stored.Result, built, builtJSON)
		if err == nil && findSimilar && out.Similar != nil && bytes.Equal(stored.Result, builtJSON) {
			out.encoded = builtJSON // out is built, which builtJSON encodes
		}
	}
	if out.Similar == nil {
		// A record stored without similar tickets (by CreateTicket, or
		// before they were stored) answers none: a replay is answered from
		// the record alone, never from a lookup made now.
		out.Similar = []SimilarTicket{}
	}
	return out, err
}

// committed is the answer to a write that committed result: the value the
// write built, when result is that value's encoding (as it is unless a
// store changed it), else result decoded.
func committed[T any, PT replayable[T]](s *Service, result []byte, built T, builtJSON []byte) (T, error) {
	if builtJSON != nil && bytes.Equal(result, builtJSON) {
		return built, nil
	}
	return decodeResult[T, PT](s, result, false)
}

// change is what update, move and note compute from the current ticket.
type change struct {
	after  *Ticket // nil: no change to the ticket
	event  *Event
	note   *Note // a new note
	edited *Note // a note's new state (noteedits.go)
	// scrubbed are stored events rewritten with the change (a redacted
	// note's edits, noteredaction.go).
	scrubbed []Event
	// scrubbedRequests are stored request records rewritten with it.
	scrubbedRequests []ledger.Record
	result           func(t Ticket, n *Note) any
}

// written is what mutate answers: a stored result, and when the write just
// committed it, the value it was encoded from.
type written struct {
	raw      []byte
	replayed bool
	built    any // the committed answer's value, when raw is its encoding
}

// answer is w as a T: the value built, or the stored result decoded.
func answer[T any, PT replayable[T]](s *Service, w written) (T, error) {
	if t, ok := w.built.(T); ok && !w.replayed {
		return t, nil
	}
	return decodeResult[T, PT](s, w.raw, w.replayed)
}

// mutate runs the read-compute-commit loop shared by update, move and note:
// replay first (a retry gets its answer even if the ticket moved on since),
// then policy, then an optimistic commit. Writes to one ticket hold a lock
// in this process (ticketLocks), so they do not race each other; a commit that
// lost to a writer elsewhere backs off with jitter and computes again.
func (s *Service) mutate(ctx context.Context, tool, requestID, ticketID string, args any,
	compute func(p Principal, before Ticket, rec ledger.Record) (change, error)) (written, error) {
	p := PrincipalFrom(ctx)
	rec, canonical, err := s.prepare(p, tool, requestID, args)
	if err != nil {
		return written{}, err
	}
	slug, _, _ := ParseTicketID(ticketID) // validated by the input
	lc := ledgerCall{p: p, tool: tool, canonical: canonical, fingerprint: rec.Fingerprint, workspace: slug, ticketID: ticketID}
	release, err := s.locks.take(ctx, ticketID)
	if err != nil {
		return written{}, s.storeFailure(err)
	}
	defer release()
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt-1); err != nil {
				return written{}, s.storeFailure(err)
			}
		}
		wc, err := s.store.LoadForWrite(ctx, rec.Key, ticketID, s.now())
		if err != nil {
			return written{}, s.storeFailure(err)
		}
		if wc.Existing != nil {
			if wc.Ticket != nil {
				lc.known = wc.Policy
			}
			res, err := s.judge(ctx, *wc.Existing, lc)
			return written{raw: res, replayed: true}, err
		}
		if wc.Ticket == nil || !readable(p, wc.Policy) {
			return written{}, ticketNotFound(ticketID)
		}
		if err := writeDenied(p, wc.Ticket.Workspace, wc.Policy); err != nil {
			return written{}, err
		}
		rec.CreatedAt = s.now()
		rec.ExpiresAt = rec.CreatedAt.Add(s.retention)
		ch, err := compute(p, *wc.Ticket, rec)
		if err != nil {
			return written{}, err
		}
		shown := *wc.Ticket
		if ch.after != nil {
			shown = *ch.after
		}
		var inbox []InboxEntry
		if ch.event != nil {
			ch.event.Mentions = s.knownMentions(ctx, mentionsIn(*ch.event, ch.note, wc.Ticket, shown))
			inbox = s.addressInbox(ctx, p, *ch.event, wc.Ticket, shown, wc.Policy)
			ch.event.Inbox = addressesOf(inbox)
		}
		built := ch.result(s.shownTicket(shown), ch.note)
		result, err := json.Marshal(built)
		if err != nil {
			return written{}, s.storeFailure(err)
		}
		rec.Result = result
		var allowed []AIPolicy
		if p.IsAI() {
			allowed = []AIPolicy{PolicyReadWrite}
		}
		stored, err := s.store.SaveTicket(ctx, SaveTx{Request: rec, Before: *wc.Ticket, After: ch.after, Event: ch.event, Note: ch.note, EditedNote: ch.edited, ScrubbedEvents: ch.scrubbed, ScrubbedRequests: ch.scrubbedRequests, Inbox: inbox, AllowedPolicies: allowed})
		var exists *ledger.ExistsError
		var denied *PolicyError
		switch {
		case errors.Is(err, ErrVersionConflict):
			continue // changed elsewhere since we read it: back off, recompute
		case errors.As(err, &exists):
			res, err := s.judge(ctx, exists.Record, lc)
			return written{raw: res, replayed: true}, err
		case errors.Is(err, ErrNotFound):
			return written{}, ticketNotFound(ticketID)
		case errors.As(err, &denied):
			if denied.Policy == PolicyHidden {
				return written{}, ticketNotFound(ticketID)
			}
			return written{}, writeDenied(p, wc.Ticket.Workspace, denied.Policy)
		case err != nil:
			return written{}, s.storeFailure(err)
		}
		if !bytes.Equal(stored.Result, result) {
			built = nil // the store answered another encoding: decode that
		}
		return written{raw: stored.Result, built: built}, nil
	}
	return written{}, Errorf(CodeConflict, "ticket '%s' kept changing while this call tried to write; nothing was written by it, retry with the same request_id", ticketID)
}

// UpdateTicket changes fields other than status.
func (s *Service) UpdateTicket(ctx context.Context, in UpdateTicketInput) (TicketResult, error) {
	if err := in.Validate(); err != nil {
		return TicketResult{}, err
	}
	w, err := s.mutate(ctx, ToolUpdateTicket, in.RequestID, in.ID, in, func(p Principal, before Ticket, rec ledger.Record) (change, error) {
		if in.IfVersion != 0 && before.Version != in.IfVersion {
			return change{}, Errorf(CodePreconditionFailed, "ticket '%s' is at version %d, not %d: it changed since you read it, and nothing was written. Read it again and send the change with its current version", in.ID, before.Version, in.IfVersion)
		}
		assignsSelf := in.Owner.Set && in.Owner.Value != nil && *in.Owner.Value == p.Author
		ended, err := guardClaim(p, before, in.ClaimToken, rec.CreatedAt, assignsSelf)
		if err != nil {
			return change{}, err
		}
		after := before
		after.Tags = slices.Clone(before.Tags)
		after.Links = slices.Clone(before.Links)
		var fields []string
		var changes []FieldChange
		set := func(name string, changed bool) {
			if changed {
				fields = append(fields, name)
			}
		}
		// setValue names a short field and keeps its values.
		setValue := func(name string, changed bool, before, after any) {
			set(name, changed)
			if changed {
				changes = append(changes, FieldChange{Field: name, Before: before, After: after})
			}
		}
		if in.Title != nil {
			setValue("title", after.Title != *in.Title, after.Title, *in.Title)
			after.Title = *in.Title
		}
		if in.Body != nil {
			set("body", after.Body != *in.Body)
			after.Body = *in.Body
		}
		if in.Priority != nil {
			setValue("priority", after.Priority != *in.Priority, string(after.Priority), string(*in.Priority))
			after.Priority = *in.Priority
		}
		if in.Owner.Set {
			setValue("owner", !equalPtr(after.Owner, in.Owner.Value), orNull(after.Owner), orNull(in.Owner.Value))
			after.Owner = in.Owner.Value
		}
		if in.Due.Set {
			setValue("due", !equalPtr(after.Due, in.Due.Value), orNull(after.Due), orNull(in.Due.Value))
			after.Due = in.Due.Value
		}
		if in.Tags != nil {
			setValue("tags", !slices.Equal(after.Tags, *in.Tags), nonNil(slices.Clone(after.Tags)), nonNil(slices.Clone(*in.Tags)))
			after.Tags = nonNil(*in.Tags)
		}
		if in.Links != nil {
			set("links", !slices.Equal(after.Links, *in.Links))
			after.Links = nonNil(*in.Links)
		}
		ch := change{result: func(t Ticket, _ *Note) any { return TicketResult{RequestID: in.RequestID, Ticket: t} }}
		if len(fields) == 0 {
			return ch, nil // same values: record the call, change nothing
		}
		after.Version = before.Version + 1
		after.UpdatedAt = rec.CreatedAt
		ch.after = &after
		ch.event = &Event{ID: s.newID(), Workspace: before.Workspace, TicketID: before.ID, Type: EventTicketUpdated,
			Title: after.Title, Fields: fields, Changes: changes, Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, RequestID: in.RequestID, At: rec.CreatedAt}
		if ended != nil {
			after.Claim = nil // a person took the ticket: the agent's claim ends
			ch.event.Holder = ended.holder()
		}
		return ch, nil
	})
	if err != nil {
		return TicketResult{}, err
	}
	return answer[TicketResult](s, w)
}

// MoveTicket changes a ticket's status and keeps the reason in the history.
func (s *Service) MoveTicket(ctx context.Context, in MoveTicketInput) (MoveResult, error) {
	if err := in.Validate(); err != nil {
		return MoveResult{}, err
	}
	w, err := s.mutate(ctx, ToolMoveTicket, in.RequestID, in.ID, in, func(p Principal, before Ticket, rec ledger.Record) (change, error) {
		from := before.Status
		ch := change{result: func(t Ticket, _ *Note) any {
			return MoveResult{RequestID: in.RequestID, Ticket: t, From: from, To: in.Status}
		}}
		ended, err := guardClaim(p, before, in.ClaimToken, rec.CreatedAt, true)
		if err != nil {
			return change{}, err
		}
		if from == in.Status {
			return ch, nil // already there: record the call, change nothing
		}
		after := before
		after.Version = before.Version + 1
		moveTo(&after, in.Status, rec.CreatedAt)
		ch.after = &after
		ch.event = &Event{ID: s.newID(), Workspace: before.Workspace, TicketID: before.ID, Type: EventTicketMoved,
			Title: before.Title, From: string(from), To: string(in.Status), Reason: in.Reason,
			Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, RequestID: in.RequestID, At: rec.CreatedAt}
		if ended != nil {
			after.Claim = nil // a person moved the ticket: the agent's claim ends
			ch.event.Holder = ended.holder()
		}
		return ch, nil
	})
	if err != nil {
		return MoveResult{}, err
	}
	return answer[MoveResult](s, w)
}

// AddNote appends a note; the ticket's version and updated_at move with it.
func (s *Service) AddNote(ctx context.Context, in AddNoteInput) (NoteResult, error) {
	if err := in.Validate(); err != nil {
		return NoteResult{}, err
	}
	w, err := s.mutate(ctx, ToolAddNote, in.RequestID, in.ID, in, func(p Principal, before Ticket, rec ledger.Record) (change, error) {
		note := &Note{ID: newNoteID(before.ID, rec.CreatedAt, s.newID()), TicketID: before.ID, Body: in.Body, Author: p.Author,
			OnBehalfOf: p.OnBehalfOf, Source: p.Source, CreatedAt: rec.CreatedAt}
		after := before
		after.Version = before.Version + 1
		after.UpdatedAt = rec.CreatedAt
		return change{
			after: &after,
			note:  note,
			event: &Event{ID: s.newID(), Workspace: before.Workspace, TicketID: before.ID, Type: EventNoteAdded,
				Title: before.Title, NoteID: note.ID, Author: p.Author, OnBehalfOf: p.OnBehalfOf, Source: p.Source, RequestID: in.RequestID, At: rec.CreatedAt},
			result: func(_ Ticket, n *Note) any { return NoteResult{RequestID: in.RequestID, Note: *n} },
		}, nil
	})
	if err != nil {
		return NoteResult{}, err
	}
	return answer[NoteResult](s, w)
}

func replayAs[T any, PT replayable[T]](ctx context.Context, s *Service, existing ledger.Record, c ledgerCall) (T, error) {
	raw, err := s.judge(ctx, existing, c)
	if err != nil {
		var zero T
		return zero, err
	}
	return decodeResult[T, PT](s, raw, true)
}

// replayable is every write result: a stored result is returned with
// replayed set when it answers a retry.
type replayable[T any] interface {
	*T
	markReplayed()
}

func (r *TicketResult) markReplayed() { r.Replayed = true }
func (r *MoveResult) markReplayed()   { r.Replayed = true }
func (r *NoteResult) markReplayed()   { r.Replayed = true }

// decodeResult turns a stored result back into its type, marking replays.
func decodeResult[T any, PT replayable[T]](s *Service, raw []byte, replayed bool) (T, error) {
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, s.storeFailure(fmt.Errorf("stored result cannot be decoded: %w", err))
	}
	if replayed {
		PT(&out).markReplayed()
	}
	return out, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// orNull is an optional value as an event's change keeps it: nil (JSON
// null) when unset.
func orNull(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
