package webhook_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// feedEvents is the workspace's events from the first, in order.
func (f *fixture) feedEvents(t *testing.T) []board.Event {
	t.Helper()
	evs, err := f.store.EventsAfter(t.Context(), "inbox", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []board.Event
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

// Fan-out names one delivery per subscription that wants the event, a
// paused one too (its deliveries wait in the queue until it is resumed, as
// the local loop's cursor waits): not a deleted one, one whose filter
// refuses it, or one made after the event; grouped per subscription and ticket, deduplicated per
// subscription and event.
func TestFanoutNamesTheSubscriptionsThatWantTheEvent(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	f.create(t, "before every subscription")
	before := len(f.feedEvents(t))
	all := f.subscribe(t, r, webhook.CreateInput{})
	toDone := f.subscribe(t, r, webhook.CreateInput{Events: []webhook.EventFilter{{Kind: board.EventTicketMoved, To: board.StatusDone}}})
	paused := f.subscribe(t, r, webhook.CreateInput{})
	if _, err := f.hooks.SetPaused(f.admin, "inbox", paused.ID, true); err != nil {
		t.Fatal(err)
	}
	gone := f.subscribe(t, r, webhook.CreateInput{})
	if err := f.hooks.Delete(f.admin, "inbox", gone.ID); err != nil {
		t.Fatal(err)
	}
	notes := f.subscribe(t, r, webhook.CreateInput{Events: []webhook.EventFilter{{Kind: board.EventNoteAdded}}})
	id := f.create(t, "Fix the login page")
	f.move(t, id, board.StatusDone)

	evs := f.feedEvents(t)[before:]
	want := map[string][]string{}
	for _, ev := range evs {
		ds, err := f.hooks.Fanout(t.Context(), ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Event.ID != ev.ID {
				t.Fatalf("a delivery of %s carries event %s", ev.ID, d.Event.ID)
			}
			if d.Group() != d.Subscription+"/"+ev.TicketID || d.Dedup() != d.Subscription+"/"+ev.ID {
				t.Errorf("group %q, dedup %q", d.Group(), d.Dedup())
			}
			want[d.Subscription] = append(want[d.Subscription], ev.Type+" "+ev.TicketID)
		}
	}
	if got := want[all.ID]; !slices.Equal(got, []string{"ticket.created " + id, "ticket.moved " + id}) {
		t.Errorf("the subscription to everything gets %v", got)
	}
	if got := want[toDone.ID]; !slices.Equal(got, []string{"ticket.moved " + id}) {
		t.Errorf("the subscription to moves into done gets %v", got)
	}
	if got := want[paused.ID]; !slices.Equal(got, want[all.ID]) {
		t.Errorf("the paused subscription gets %v, want what the active one gets: %v", got, want[all.ID])
	}
	for _, s := range []webhook.Subscription{gone, notes} {
		if got := want[s.ID]; got != nil {
			t.Errorf("subscription %s (deleted or filtered out) gets %v", s.ID, got)
		}
	}
	// An event older than a subscription (a board imported into the
	// store) is not sent to it.
	past := evs[0]
	past.At = all.CreatedAt.Add(-time.Minute)
	if ds, err := f.hooks.Fanout(t.Context(), past); err != nil || len(ds) != 0 {
		t.Errorf("an event older than every subscription makes %v (%v)", ds, err)
	}
	ws := webhook.Delivery{Subscription: "wh_1", Event: board.Event{ID: "e1", Workspace: "inbox"}}
	if ws.Group() != "wh_1/workspace:inbox" {
		t.Errorf("a workspace event's group is %q", ws.Group())
	}
}

// A queued delivery that fails waits the schedule's step for its try; the
// subscription counts its failures as the local loop does and is paused
// once they have lasted the give-up window; a success clears them; a
// paused subscription's delivery waits untried; a deleted one's is done.
func TestSendQueuedRetriesOnTheScheduleThenPauses(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true, Schedule: []time.Duration{5 * time.Second, time.Minute, time.Hour}, GiveUp: 24 * time.Hour})
	r := newReceiver(t)
	failing := true
	r.answer = func(int) int {
		if failing {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	sub := f.subscribe(t, r, webhook.CreateInput{})
	id := f.create(t, "Fix the login page")
	ev := f.feedEvents(t)[0]
	if ev.TicketID != id {
		t.Fatalf("first event %+v", ev)
	}
	d := webhook.Delivery{Subscription: sub.ID, Event: ev}
	send := func(tries int) webhook.Outcome {
		t.Helper()
		out, err := f.hooks.SendQueued(t.Context(), d, tries)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for tries, want := range map[int]time.Duration{1: 5 * time.Second, 2: time.Minute, 3: time.Hour, 9: time.Hour} {
		if out := send(tries); out.Done || out.Paused || out.Wait != want {
			t.Errorf("try %d: %+v, want a wait of %v", tries, out, want)
		}
	}
	p := f.sub(t, sub.ID).Progress
	if p.Failures != 4 || p.FailingSince.IsZero() {
		t.Errorf("progress after four failures: %+v", p)
	}

	failing = false
	if out := send(5); !out.Done {
		t.Errorf("a success: %+v", out)
	}
	if p := f.sub(t, sub.ID).Progress; p.Failures != 0 || !p.FailingSince.IsZero() {
		t.Errorf("a success leaves the failures: %+v", p)
	}

	failing = true
	send(1)
	f.clock.Add(24 * time.Hour)
	out := send(2)
	if !out.Paused || out.Wait != webhook.PausedRecheck {
		t.Fatalf("a failure after the give-up window: %+v", out)
	}
	s := f.sub(t, sub.ID)
	if !s.Paused || !strings.Contains(s.PausedReason, "deliveries failed for 24h0m0s") || !strings.Contains(s.PausedReason, "status 500") {
		t.Errorf("paused %v: %q", s.Paused, s.PausedReason)
	}
	before := len(r.deliveries())
	if out := send(3); out.Done || out.Wait != webhook.PausedRecheck || len(r.deliveries()) != before {
		t.Errorf("a paused subscription's delivery: %+v, %d posts", out, len(r.deliveries())-before)
	}
	log, err := f.store.ListAttempts(t.Context(), sub.ID, 100)
	if err != nil || len(log) != before {
		t.Errorf("the log has %d attempts (%v), want one per post (%d)", len(log), err, before)
	}

	if err := f.hooks.Delete(f.admin, "inbox", sub.ID); err != nil {
		t.Fatal(err)
	}
	if out := send(4); !out.Done {
		t.Errorf("a deleted subscription's delivery: %+v", out)
	}
}
