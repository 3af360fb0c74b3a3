package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// MaxNoteEdits is how many times one note may be edited. A redaction
// rewrites, in its own write, every note.edited event of its note and the
// request records of the calls that wrote its texts (two DynamoDB items
// each: the record and the part a large result is kept in). A DynamoDB
// transaction holds at most 100 items: 25 edits take 25 + 2×26 of them,
// leaving room for the redaction's own record, ticket, note and event.
// The edit after the last one is refused; a new note says what more there
// is to say.
const MaxNoteEdits = 25

// noteHistoryPage is how many events one read of a ticket's history takes
// while looking for a note's edits.
const noteHistoryPage = MaxLimit

// noteHistory is what a ticket's history keeps of one note: the event
// that added it (nil for a note moved in without one) and its edits,
// oldest first.
type noteHistory struct {
	added *Event
	edits []Event
}

// noteEvents reads note n's events: the ticket's history read back from
// the newest event to the note's creation (no event of a note is older
// than the note).
func (s *Service) noteEvents(ctx context.Context, n Note) (noteHistory, error) {
	var h noteHistory
	var edits []Event
	q := ActivityQuery{TicketID: n.TicketID, Limit: noteHistoryPage}
	for {
		page, err := s.store.ListHistory(ctx, q)
		if err != nil {
			return h, err
		}
		older := false
		for i := len(page.Events) - 1; i >= 0; i-- {
			e := page.Events[i]
			if e.At.Before(n.CreatedAt) {
				older = true
				break
			}
			switch {
			case e.NoteID != n.ID:
			case e.Type == EventNoteEdited:
				edits = append(edits, e)
			case e.Type == EventNoteAdded:
				h.added = &e
			}
		}
		if older || !page.More || len(page.Events) == 0 {
			break
		}
		q.Before = &Position{At: page.Events[0].At, ID: page.Events[0].ID}
	}
	for i, j := 0, len(edits)-1; i < j; i, j = i+1, j-1 {
		edits[i], edits[j] = edits[j], edits[i]
	}
	h.edits = edits
	return h, nil
}

// texts are every text note n has had, as its history and its current
// body keep them.
func (h noteHistory) texts(n Note) map[string]bool {
	texts := map[string]bool{n.Body: true}
	for _, e := range h.edits {
		for _, c := range e.Changes {
			for _, v := range []any{c.Before, c.After} {
				if t, ok := v.(string); ok {
					texts[t] = true
				}
			}
		}
	}
	delete(texts, RedactedNoteBody)
	return texts
}

// scrubbedRequests are the request records still kept of the calls that
// wrote note n's texts (its add_note and edit_note calls, found by the
// request ids and authors of their events), with every one of those texts
// in their arguments and answers replaced by RedactedNoteBody. A replay of
// such a call answers the redacted note. The fingerprint stays: a retry
// with the same arguments is still the same call.
func (s *Service) scrubbedRequests(ctx context.Context, n Note, h noteHistory, now time.Time) ([]ledger.Record, error) {
	texts := h.texts(n)
	events := h.edits
	if h.added != nil {
		events = append([]Event{*h.added}, events...)
	}
	var out []ledger.Record
	for _, e := range events {
		if e.RequestID == "" {
			continue
		}
		key := ledger.Key{Principal: Principal{Author: e.Author, OnBehalfOf: e.OnBehalfOf}.LedgerKey(), RequestID: e.RequestID}
		rec, err := s.store.GetRequest(ctx, key, now)
		if errors.Is(err, ErrNotFound) {
			continue // expired, or never kept (a note moved in from another board)
		}
		if err != nil {
			return nil, err
		}
		args, argsChanged, err := scrubJSON(rec.Args, texts)
		if err != nil {
			return nil, err
		}
		result, resultChanged, err := scrubJSON(rec.Result, texts)
		if err != nil {
			return nil, err
		}
		if argsChanged || resultChanged {
			rec.Args, rec.Result = args, result
			out = append(out, rec)
		}
	}
	return out, nil
}

// scrubJSON replaces every "body" of raw that is one of texts by
// RedactedNoteBody (the body argument of add_note and edit_note, the
// note's body in their answers), and says whether it replaced any.
func scrubJSON(raw json.RawMessage, texts map[string]bool) (json.RawMessage, bool, error) {
	if len(raw) == 0 {
		return raw, false, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers come back as they were written
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false, err
	}
	changed := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if t, ok := e.(string); ok && k == "body" && texts[t] {
					x[k] = RedactedNoteBody
					changed = true
					continue
				}
				walk(e)
			}
		}
	}
	walk(v)
	if !changed {
		return raw, false, nil
	}
	out, err := json.Marshal(v)
	return out, true, err
}

// scrubbedEdits are a redacted note's edit events with the texts they
// kept replaced by RedactedNoteBody; everything else (id, time, author,
// request) stays, so the history keeps that the note was edited, by whom
// and when, in the same order.
func scrubbedEdits(edits []Event) []Event {
	out := make([]Event, 0, len(edits))
	for _, e := range edits {
		changes := make([]FieldChange, len(e.Changes))
		for i, c := range e.Changes {
			if c.Field == "body" {
				c.Before, c.After = RedactedNoteBody, RedactedNoteBody
			}
			changes[i] = c
		}
		e.Changes = changes
		out = append(out, e)
	}
	return out
}
