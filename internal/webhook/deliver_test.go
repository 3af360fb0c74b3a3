package webhook_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

func TestDeliversEveryEventSignedAndInOrder(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	f.create(t, "before the subscription") // not sent: a subscription starts now
	before := len(f.feedIDs(t))
	f.subscribe(t, r, webhook.CreateInput{})
	id := f.create(t, "Fix the login page")
	f.move(t, id, board.StatusWaitingHuman)
	if _, err := f.board.AddNote(f.admin, board.AddNoteInput{RequestID: f.rid(), ID: id, Body: "see the logs"}); err != nil {
		t.Fatal(err)
	}
	f.hooks.RunOnce(t.Context())

	got := r.deliveries()
	want := f.feedIDs(t)[before:]
	if ids := deliveryIDs(got); !slices.Equal(ids, want) {
		t.Fatalf("delivered %v, want the feed after the subscription %v", ids, want)
	}
	for _, d := range got {
		if d.Err != nil {
			t.Fatalf("delivery %s fails the Standard Webhooks check: %v", d.ID, d.Err)
		}
	}
	var moved webhook.Payload
	if err := json.Unmarshal(got[1].Body, &moved); err != nil {
		t.Fatal(err)
	}
	if moved.ID != want[1] || moved.Type != board.EventTicketMoved || moved.Workspace != "inbox" || moved.Data.Author != "human:alice" ||
		moved.Data.Ticket == nil || moved.Data.Ticket.ID != id || moved.Data.Ticket.Title != "Fix the login page" ||
		moved.Data.Ticket.URL != "https://ledger.example/tickets/"+id || moved.Data.Status == nil ||
		moved.Data.Status.Before != "candidate" || moved.Data.Status.After != "waiting_human" || moved.Data.Reason != "because" {
		t.Fatalf("the move's body is %s", got[1].Body)
	}
	// An update carries its fields' values, and the title the event left,
	// however the ticket changed before the delivery.
	title, priority := "Fix the login page on phones", board.PriorityHigh
	if _, err := f.board.UpdateTicket(f.admin, board.UpdateTicketInput{RequestID: f.rid(), ID: id, Title: &title, Priority: &priority}); err != nil {
		t.Fatal(err)
	}
	later := "Renamed again before the delivery"
	if _, err := f.board.UpdateTicket(f.admin, board.UpdateTicketInput{RequestID: f.rid(), ID: id, Title: &later}); err != nil {
		t.Fatal(err)
	}
	f.hooks.RunOnce(t.Context())
	all := r.deliveries()
	var updated webhook.Payload
	if err := json.Unmarshal(all[len(want)].Body, &updated); err != nil {
		t.Fatal(err)
	}
	changes, _ := json.Marshal(updated.Data.Changes)
	if updated.Type != board.EventTicketUpdated || updated.Data.Ticket.Title != title ||
		string(changes) != `[{"field":"title","before":"Fix the login page","after":"Fix the login page on phones"},{"field":"priority","before":"normal","after":"high"}]` {
		t.Fatalf("the update's body is %s", all[len(want)].Body)
	}
	want = f.feedIDs(t)[before:]
	// Everything was taken: another round sends nothing.
	f.hooks.RunOnce(t.Context())
	if n := len(r.deliveries()); n != len(want) {
		t.Fatalf("a second round sent again: %d deliveries", n)
	}
}

func deliveryIDs(ds []delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

func TestFiltersByKindAndStatus(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	sub := f.subscribe(t, r, webhook.CreateInput{Events: []webhook.EventFilter{{Kind: board.EventTicketMoved, To: board.StatusWaitingHuman}}})
	id := f.create(t, "t")
	f.move(t, id, board.StatusDoing)
	f.move(t, id, board.StatusWaitingHuman)
	f.create(t, "u")
	f.hooks.RunOnce(t.Context())
	got := r.deliveries()
	if len(got) != 1 {
		t.Fatalf("sent %d events, want only the move to waiting_human", len(got))
	}
	var p webhook.Payload
	json.Unmarshal(got[0].Body, &p)
	if p.Type != board.EventTicketMoved || p.Data.Status.After != "waiting_human" {
		t.Fatalf("sent %s", got[0].Body)
	}
	// The cursor moved past the filtered events too.
	ids := f.feedIDs(t)
	end, _ := f.store.EventsEnd(t.Context(), "inbox")
	if c := f.sub(t, sub.ID).Progress.Cursor; c != end {
		t.Fatalf("the cursor is %q after %d events, want the end %q", c, len(ids), end)
	}
}

func TestSlackFormat(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	f.subscribe(t, r, webhook.CreateInput{Format: webhook.FormatSlack})
	id := f.create(t, "Ship <it> & tell")
	f.move(t, id, board.StatusWaitingHuman)
	f.hooks.RunOnce(t.Context())
	got := r.deliveries()
	if len(got) != 2 {
		t.Fatalf("sent %d messages, want 2", len(got))
	}
	var msg map[string]string
	if err := json.Unmarshal(got[1].Body, &msg); err != nil || len(msg) != 1 {
		t.Fatalf("a Slack message is {\"text\"}: %s", got[1].Body)
	}
	want := "human:alice moved " + id + " “Ship &lt;it&gt; &amp; tell” <https://ledger.example/tickets/" + id + "|open> from candidate to waiting_human: because"
	if msg["text"] != want {
		t.Fatalf("text is\n%q\nwant\n%q", msg["text"], want)
	}
	if got[1].Err != nil {
		t.Fatalf("a Slack message is signed too: %v", got[1].Err)
	}
}

func TestRetriesWithBackoffKeepingTheIDAndTheOrder(t *testing.T) {
	schedule := []time.Duration{5 * time.Second, time.Minute}
	f := newFixture(t, webhook.Config{AllowPrivate: true, Schedule: schedule, GiveUp: time.Hour})
	r := newReceiver(t)
	r.clock = f.clock.Now
	r.answer = func(n int) int {
		if n == 0 || n == 1 {
			return http.StatusServiceUnavailable // the first event fails twice
		}
		return http.StatusOK
	}
	sub := f.subscribe(t, r, webhook.CreateInput{})
	f.create(t, "one")
	f.create(t, "two")
	start := f.clock.Now()

	f.hooks.RunOnce(t.Context())
	p := f.sub(t, sub.ID).Progress
	if p.Failures != 1 || !p.NextAttempt.Equal(start.Add(5*time.Second)) || !p.FailingSince.Equal(start) {
		t.Fatalf("after one failure progress is %+v, want a retry 5s later", p)
	}
	f.hooks.RunOnce(t.Context()) // too early: nothing is sent
	if n := len(r.deliveries()); n != 1 {
		t.Fatalf("a retry went out before its time: %d requests", n)
	}
	f.clock.Add(5 * time.Second)
	f.hooks.RunOnce(t.Context())
	p = f.sub(t, sub.ID).Progress
	if p.Failures != 2 || !p.NextAttempt.Equal(start.Add(5*time.Second+time.Minute)) {
		t.Fatalf("after two failures progress is %+v, want the next step of the schedule (1m)", p)
	}
	f.clock.Add(time.Minute)
	f.hooks.RunOnce(t.Context())

	feed := f.feedIDs(t)
	first, second := feed[len(feed)-2], feed[len(feed)-1]
	if ids := deliveryIDs(r.deliveries()); !slices.Equal(ids, []string{first, first, first, second}) {
		t.Fatalf("requests carried ids %v, want the first event three times (same id), then the second", ids)
	}
	if p := f.sub(t, sub.ID).Progress; p.Failures != 0 || !p.NextAttempt.IsZero() {
		t.Fatalf("after a success progress is %+v, want the failures cleared", p)
	}
	d, err := f.hooks.Get(f.admin, "inbox", sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Deliveries) != 4 || d.Deliveries[0].Status != 200 || d.Deliveries[3].Status != 503 || d.Deliveries[3].OK {
		t.Fatalf("the log is %+v", d.Deliveries)
	}
	if a := d.Deliveries[3].Answer; len(a) != webhook.AnswerBytes || !strings.HasPrefix(a, "answer 0 ") {
		t.Fatalf("the log keeps %d bytes of the answer (%q), want the first %d", len(a), a, webhook.AnswerBytes)
	}
}

func TestPausesAfterTheGiveUpWindow(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true, Schedule: []time.Duration{time.Minute}, GiveUp: 10 * time.Minute})
	r := newReceiver(t)
	r.clock = f.clock.Now
	r.answer = func(int) int { return http.StatusInternalServerError }
	sub := f.subscribe(t, r, webhook.CreateInput{})
	f.create(t, "never taken")
	for range 10 {
		f.hooks.RunOnce(t.Context())
		if f.sub(t, sub.ID).Paused {
			t.Fatalf("paused after %d requests, before the window ended", len(r.deliveries()))
		}
		f.clock.Add(time.Minute)
	}
	f.hooks.RunOnce(t.Context()) // 10 minutes after the first failure
	s := f.sub(t, sub.ID)
	if !s.Paused || !strings.Contains(s.PausedReason, "failed for 10m0s") || !strings.Contains(s.PausedReason, "status 500") {
		t.Fatalf("after the window: paused=%v reason=%q", s.Paused, s.PausedReason)
	}
	n := len(r.deliveries())
	f.clock.Add(time.Hour)
	f.hooks.RunOnce(t.Context())
	if len(r.deliveries()) != n {
		t.Fatal("a paused subscription was sent to")
	}
	// Resumed, it tries the held event at once.
	r.answer = func(int) int { return http.StatusOK }
	if _, err := f.hooks.SetPaused(f.admin, "inbox", sub.ID, false); err != nil {
		t.Fatal(err)
	}
	f.hooks.RunOnce(t.Context())
	got := r.deliveries()
	if len(got) != n+1 || got[n].Status != 200 || got[n].ID != got[0].ID {
		t.Fatalf("after resume: %d requests, the last %+v", len(got), got[len(got)-1])
	}
}

func TestManyEventsStayInOrderAcrossPasses(t *testing.T) {
	f := newFixture(t, webhook.Config{AllowPrivate: true})
	r := newReceiver(t)
	fail := map[int]bool{3: true, 40: true, 41: true, 77: true}
	r.answer = func(n int) int {
		if fail[n] {
			return http.StatusBadGateway
		}
		return http.StatusAccepted
	}
	f.subscribe(t, r, webhook.CreateInput{})
	before := len(f.feedIDs(t))
	for i := range 120 {
		f.create(t, "ticket "+strings.Repeat("i", i%5+1))
	}
	want := f.feedIDs(t)[before:]
	for range 10 {
		f.hooks.RunOnce(t.Context())
		f.clock.Add(time.Hour) // past every retry
	}
	// What the receiver took (2xx), in order, is the feed exactly; a
	// duplicate comes only right after a failure of the same event.
	var took []string
	got := r.deliveries()
	for i, d := range got {
		if d.Status/100 == 2 {
			took = append(took, d.ID)
		} else if i+1 >= len(got) || got[i+1].ID != d.ID {
			t.Fatalf("after a failure of %s the next request was %v, want the same event again", d.ID, got[i+1].ID)
		}
	}
	if !slices.Equal(took, want) {
		t.Fatalf("took %d events, want the %d of the feed in order", len(took), len(want))
	}
}
