// Package webhooktest is the contract suite of webhook.Store. Every
// backend calls Run from its own _test.go file with a function that opens
// an empty, freshly seeded store (the default workspaces) sharing nothing
// with any other it returned.
package webhooktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Backend is a store that keeps both the board and its webhooks.
type Backend interface {
	board.Store
	webhook.Store
}

// T0 is the suite's clock.
var T0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// Run runs the contract.
func Run(t *testing.T, open func(t *testing.T) Backend) {
	t.Run("Subscriptions", func(t *testing.T) { t.Parallel(); testSubscriptions(t, open(t)) })
	t.Run("PauseAndProgress", func(t *testing.T) { t.Parallel(); testProgress(t, open(t)) })
	t.Run("DeliveryLog", func(t *testing.T) { t.Parallel(); testAttempts(t, open(t)) })
	t.Run("EventsInOrder", func(t *testing.T) { t.Parallel(); testEvents(t, open(t)) })
	t.Run("ConcurrentWritesNeverSkipped", func(t *testing.T) { t.Parallel(); testConcurrent(t, open(t)) })
	t.Run("CreatedOncePerRequest", func(t *testing.T) { t.Parallel(); testCreatedOnce(t, open(t)) })
}

// record is the request record of a subscription's creation, under a
// request_id named after it.
func record(id string) ledger.Record {
	r := ledger.NewRecord(ledger.Key{Principal: "human:alice", RequestID: "create-" + id}, webhook.ToolCreateWebhook,
		[]byte(`{"url":"https://hooks.example.com/`+id+`","workspace":"inbox"}`), T0, 24*time.Hour)
	r.Result = []byte(`{"subscription":{"id":"` + id + `"},"sealed_secret":"AAEC"}`)
	return r
}

func sub(id, workspace string, n int) webhook.Subscription {
	return webhook.Subscription{ID: id, Workspace: workspace, URL: "https://hooks.example.com/" + id,
		Events: []webhook.EventFilter{{Kind: board.EventTicketMoved, To: board.StatusWaitingHuman}, {Kind: board.EventNoteAdded}},
		Format: webhook.FormatSlack, CreatedBy: "human:alice", CreatedAt: T0.Add(time.Duration(n)*time.Second + 7*time.Millisecond),
		Progress: webhook.Progress{Cursor: ""}, SealedSecret: []byte{0, 1, 2, byte(n), 255}}
}

func same(t *testing.T, got, want webhook.Subscription) {
	t.Helper()
	if got.ID != want.ID || got.Workspace != want.Workspace || got.URL != want.URL || !slices.Equal(got.Events, want.Events) ||
		got.Format != want.Format || got.Paused != want.Paused || got.PausedReason != want.PausedReason ||
		got.CreatedBy != want.CreatedBy || !got.CreatedAt.Equal(want.CreatedAt) || string(got.SealedSecret) != string(want.SealedSecret) ||
		!sameProgress(got.Progress, want.Progress) {
		t.Fatalf("subscription read back as\n%+v\nwant\n%+v", got, want)
	}
}

func sameProgress(a, b webhook.Progress) bool {
	return a.Cursor == b.Cursor && a.Failures == b.Failures && a.FailingSince.Equal(b.FailingSince) && a.NextAttempt.Equal(b.NextAttempt)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func notFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("%s: got %v, want board.ErrNotFound", what, err)
	}
}

func testSubscriptions(t *testing.T, s Backend) {
	ctx := t.Context()
	a, b, c := sub("wh_a", "inbox", 1), sub("wh_b", "reference", 2), sub("wh_c", "inbox", 3)
	c.Events = []webhook.EventFilter{}
	c.Format = webhook.FormatJSON
	for _, x := range []webhook.Subscription{a, b, c} {
		must(t, s.CreateSubscription(ctx, x, record(x.ID)))
	}
	got, err := s.GetSubscription(ctx, "wh_a")
	must(t, err)
	same(t, got, a)
	_, err = s.GetSubscription(ctx, "wh_none")
	notFound(t, "GetSubscription of a missing id", err)

	inbox, err := s.ListSubscriptions(ctx, "inbox")
	must(t, err)
	if len(inbox) != 2 {
		t.Fatalf("inbox lists %d subscriptions, want 2", len(inbox))
	}
	same(t, inbox[0], a)
	same(t, inbox[1], c)
	all, err := s.ListSubscriptions(ctx, "")
	must(t, err)
	if ids := subIDs(all); !slices.Equal(ids, []string{"wh_a", "wh_b", "wh_c"}) {
		t.Fatalf("every workspace lists %v, want wh_a, wh_b, wh_c", ids)
	}
	none, err := s.ListSubscriptions(ctx, "private")
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("a workspace without subscriptions lists %d", len(none))
	}

	must(t, s.DeleteSubscription(ctx, "wh_a"))
	_, err = s.GetSubscription(ctx, "wh_a")
	notFound(t, "GetSubscription after delete", err)
	notFound(t, "DeleteSubscription twice", s.DeleteSubscription(ctx, "wh_a"))
	inbox, err = s.ListSubscriptions(ctx, "inbox")
	must(t, err)
	if ids := subIDs(inbox); !slices.Equal(ids, []string{"wh_c"}) {
		t.Fatalf("after delete inbox lists %v", ids)
	}
}

func subIDs(subs []webhook.Subscription) []string {
	var out []string
	for _, s := range subs {
		out = append(out, s.ID)
	}
	return out
}

func testProgress(t *testing.T, s Backend) {
	ctx := t.Context()
	a := sub("wh_p", "inbox", 1)
	must(t, s.CreateSubscription(ctx, a, record(a.ID)))
	p := webhook.Progress{Cursor: "c-1", Failures: 3, FailingSince: T0.Add(time.Minute + time.Millisecond), NextAttempt: T0.Add(time.Hour + 3*time.Millisecond)}
	must(t, s.SaveProgress(ctx, "wh_p", p))
	a.Progress = p
	got, err := s.GetSubscription(ctx, "wh_p")
	must(t, err)
	same(t, got, a)

	must(t, s.SetPaused(ctx, "wh_p", true, "deliveries failed for 24h"))
	a.Paused, a.PausedReason = true, "deliveries failed for 24h"
	got, err = s.GetSubscription(ctx, "wh_p")
	must(t, err)
	same(t, got, a)

	// Resuming clears the failures and keeps the cursor: the held event is
	// tried again at once.
	must(t, s.SetPaused(ctx, "wh_p", false, ""))
	a.Paused, a.PausedReason, a.Progress = false, "", webhook.Progress{Cursor: "c-1"}
	got, err = s.GetSubscription(ctx, "wh_p")
	must(t, err)
	same(t, got, a)

	notFound(t, "SaveProgress of a missing subscription", s.SaveProgress(ctx, "wh_gone", p))
	notFound(t, "SetPaused of a missing subscription", s.SetPaused(ctx, "wh_gone", true, "x"))
	must(t, s.DeleteSubscription(ctx, "wh_p"))
	notFound(t, "SaveProgress after delete", s.SaveProgress(ctx, "wh_p", p))
	_, err = s.GetSubscription(ctx, "wh_p")
	notFound(t, "a deleted subscription after SaveProgress", err)
}

func testAttempts(t *testing.T, s Backend) {
	ctx := t.Context()
	must(t, s.CreateSubscription(ctx, sub("wh_1", "inbox", 1), record("wh_1")))
	must(t, s.CreateSubscription(ctx, sub("wh_2", "inbox", 2), record("wh_2")))
	total := webhook.KeepAttempts + 5
	for i := range total {
		must(t, s.AddAttempt(ctx, "wh_1", webhook.Attempt{At: T0.Add(time.Duration(i) * time.Second), EventID: fmt.Sprintf("ev-%03d", i),
			Kind: webhook.AttemptDelivery, Status: 500 + i%2, LatencyMs: int64(i), OK: i%2 == 0, Answer: "answer é " + fmt.Sprint(i)}))
	}
	must(t, s.AddAttempt(ctx, "wh_2", webhook.Attempt{At: T0, EventID: "other", Kind: webhook.AttemptTest, Status: 204, OK: true}))
	log, err := s.ListAttempts(ctx, "wh_1", webhook.KeepAttempts+50)
	must(t, err)
	if len(log) != webhook.KeepAttempts {
		t.Fatalf("the log keeps %d attempts, want %d", len(log), webhook.KeepAttempts)
	}
	for i, a := range log {
		n := total - 1 - i
		want := webhook.Attempt{At: T0.Add(time.Duration(n) * time.Second), EventID: fmt.Sprintf("ev-%03d", n), Kind: webhook.AttemptDelivery,
			Status: 500 + n%2, LatencyMs: int64(n), OK: n%2 == 0, Answer: "answer é " + fmt.Sprint(n)}
		if !a.At.Equal(want.At) || a.EventID != want.EventID || a.Kind != want.Kind || a.Status != want.Status ||
			a.LatencyMs != want.LatencyMs || a.OK != want.OK || a.Answer != want.Answer {
			t.Fatalf("attempt %d is %+v, want %+v (newest first)", i, a, want)
		}
	}
	three, err := s.ListAttempts(ctx, "wh_1", 3)
	must(t, err)
	if len(three) != 3 || three[0].EventID != fmt.Sprintf("ev-%03d", total-1) {
		t.Fatalf("a limit of 3 gives %d attempts starting %+v", len(three), three)
	}
	other, err := s.ListAttempts(ctx, "wh_2", 10)
	must(t, err)
	if len(other) != 1 || other[0].EventID != "other" {
		t.Fatalf("another subscription's log is %+v", other)
	}
	must(t, s.DeleteSubscription(ctx, "wh_1"))
	gone, err := s.ListAttempts(ctx, "wh_1", 10)
	must(t, err)
	if len(gone) != 0 {
		t.Fatalf("a deleted subscription's log still has %d attempts", len(gone))
	}
}

// writer makes events through the board's own use cases.
type writer struct {
	svc *board.Service
	ctx context.Context
	n   int
	mu  sync.Mutex
}

// newWriter writes at the suite's clock, one step a write, or, with
// wall, at the wall clock (as a server does: a store may hold back the
// newest events for a settle window measured on it).
func newWriter(t *testing.T, s board.Store, wall bool) *writer {
	var mu sync.Mutex
	now := T0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second + time.Millisecond)
		return now
	}
	if wall {
		clock = time.Now
	}
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "https://ledger.example", Now: clock})
	must(t, err)
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "human:alice", Role: board.RoleAdmin, Source: board.SourceREST})
	return &writer{svc: svc, ctx: ctx}
}

func (w *writer) rid() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	return fmt.Sprintf("req-%d", w.n)
}

func (w *writer) create(t *testing.T, workspace, title string) string {
	r, err := w.svc.CreateTicket(w.ctx, board.CreateTicketInput{RequestID: w.rid(), Workspace: workspace, NewTicket: board.NewTicket{Title: title}})
	if err != nil {
		t.Error(err)
		return ""
	}
	return r.Ticket.ID
}

func testEvents(t *testing.T, s Backend) {
	ctx := t.Context()
	end, err := s.EventsEnd(ctx, "inbox")
	must(t, err)
	evs, err := s.EventsAfter(ctx, "inbox", end, 10)
	must(t, err)
	if len(evs) != 0 {
		t.Fatalf("after the end of a fresh workspace: %d events", len(evs))
	}
	w := newWriter(t, s, false)
	id := w.create(t, "inbox", "First ticket")
	w.create(t, "reference", "Elsewhere")
	_, err = w.svc.MoveTicket(w.ctx, board.MoveTicketInput{RequestID: w.rid(), ID: id, Status: board.StatusWaitingHuman, Reason: "needs you"})
	must(t, err)
	_, err = w.svc.AddNote(w.ctx, board.AddNoteInput{RequestID: w.rid(), ID: id, Body: "a note"})
	must(t, err)

	got, err := s.EventsAfter(ctx, "inbox", end, 10)
	must(t, err)
	if types := eventTypes(got); !slices.Equal(types, []string{board.EventTicketCreated, board.EventTicketMoved, board.EventNoteAdded}) {
		t.Fatalf("inbox's events after the end are %v", types)
	}
	for _, fe := range got {
		if fe.Event.TicketID != id || fe.Title != "First ticket" || fe.Cursor == "" || fe.Event.Workspace != "inbox" {
			t.Fatalf("event %+v: want ticket %s titled First ticket with a cursor", fe, id)
		}
	}
	if got[1].Event.From != string(board.StatusCandidate) || got[1].Event.To != string(board.StatusWaitingHuman) || got[1].Event.Reason != "needs you" {
		t.Fatalf("the move reads back as %+v", got[1].Event)
	}
	rest, err := s.EventsAfter(ctx, "inbox", got[0].Cursor, 1)
	must(t, err)
	if len(rest) != 1 || rest[0].Event.ID != got[1].Event.ID {
		t.Fatalf("one event after the first is %+v, want the move", rest)
	}
	last, err := s.EventsEnd(ctx, "inbox")
	must(t, err)
	if last != got[2].Cursor {
		t.Fatalf("EventsEnd is %q, want the newest event's cursor %q", last, got[2].Cursor)
	}
	after, err := s.EventsAfter(ctx, "inbox", last, 10)
	must(t, err)
	if len(after) != 0 {
		t.Fatalf("after the end: %d events", len(after))
	}
	found, err := s.FindEvent(ctx, "inbox", got[1].Event.ID)
	must(t, err)
	if found.Event.ID != got[1].Event.ID || found.Title != "First ticket" || found.Event.Type != board.EventTicketMoved {
		t.Fatalf("FindEvent gives %+v", found)
	}
	_, err = s.FindEvent(ctx, "reference", got[1].Event.ID)
	notFound(t, "FindEvent in another workspace", err)
	_, err = s.FindEvent(ctx, "inbox", "no-such-event")
	notFound(t, "FindEvent of a missing id", err)
}

func eventTypes(evs []webhook.FeedEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Event.Type)
	}
	return out
}

// testConcurrent reads the feed with a cursor while writers commit, as a
// sender does: every event is read exactly once, none skipped.
func testConcurrent(t *testing.T, s Backend) {
	ctx := t.Context()
	w := newWriter(t, s, true)
	const writers, each = 4, 8
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				w.create(t, "inbox", fmt.Sprintf("writer %d ticket %d", g, i))
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	seen := map[string]int{}
	cursor := ""
	read := func() {
		evs, err := s.EventsAfter(ctx, "inbox", cursor, 5)
		must(t, err)
		for _, e := range evs {
			seen[e.Event.ID]++
			cursor = e.Cursor
		}
	}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		read()
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(seen) < writers*each && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // a store may hold the newest events back for a settle window
		read()
	}
	if len(seen) != writers*each {
		t.Fatalf("read %d distinct events of %d written", len(seen), writers*each)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("event %s read %d times", id, n)
		}
	}
}

// A subscription is created with its request record, atomically: a second
// creation under a key an unexpired record holds writes nothing and
// carries that record; once the record has expired the key is free.
func testCreatedOnce(t *testing.T, s Backend) {
	ctx := t.Context()
	first := sub("wh_once", "inbox", 1)
	rec := record("wh_once")
	must(t, s.CreateSubscription(ctx, first, rec))
	got, err := s.GetRequest(ctx, rec.Key, T0)
	must(t, err)
	if got.Tool != webhook.ToolCreateWebhook || got.Fingerprint != rec.Fingerprint || string(got.Result) != string(rec.Result) || got.Status != ledger.StatusDone {
		t.Fatalf("the creation's record read back as %+v, want %+v", got, rec)
	}

	// The same key, another subscription (a retry that minted a new id):
	// refused with the first record, and nothing of it is stored.
	again := sub("wh_twice", "inbox", 2)
	retry := rec
	retry.CreatedAt = T0.Add(time.Minute)
	retry.Result = []byte(`{"other":true}`)
	err = s.CreateSubscription(ctx, again, retry)
	var exists *ledger.ExistsError
	if !errors.As(err, &exists) || string(exists.Record.Result) != string(rec.Result) {
		t.Fatalf("a second creation under the same key: %v, want *ledger.ExistsError carrying the first record", err)
	}
	_, err = s.GetSubscription(ctx, "wh_twice")
	notFound(t, "the refused second subscription", err)
	subs, err := s.ListSubscriptions(ctx, "inbox")
	must(t, err)
	if ids := subIDs(subs); !slices.Equal(ids, []string{"wh_once"}) {
		t.Fatalf("after the refused retry inbox lists %v, want only wh_once", ids)
	}

	// Past the record's expiry the key is free again.
	late := rec
	late.CreatedAt, late.ExpiresAt = rec.ExpiresAt.Add(time.Second), rec.ExpiresAt.Add(25*time.Hour)
	late.Result = []byte(`{"late":true}`)
	must(t, s.CreateSubscription(ctx, again, late))
	got, err = s.GetRequest(ctx, rec.Key, late.CreatedAt)
	must(t, err)
	if string(got.Result) != string(late.Result) {
		t.Fatalf("after expiry the key holds %s, want the new record's %s", got.Result, late.Result)
	}
	_, err = s.GetSubscription(ctx, "wh_twice")
	must(t, err)
}
