package webhooklambda

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// The fan-out, handed the stream's records, queues exactly one message
// per subscription that wants each event — a paused one's too, to wait
// for its resumption; none for a deleted or a filtered-out subscription —
// grouped per subscription and ticket in
// the stream's order; the same batch handed to it again queues nothing
// more.
func TestFanoutQueuesOneMessagePerSubscriptionAndEvent(t *testing.T) {
	r := newRig(t)
	rc := newReceiver(t)
	all := r.subscribe(t, rc, webhook.CreateInput{})
	toDone := r.subscribe(t, rc, webhook.CreateInput{Events: []webhook.EventFilter{{Kind: board.EventTicketMoved, To: board.StatusDone}}})
	paused := r.subscribe(t, rc, webhook.CreateInput{})
	if _, err := r.hooks.SetPaused(r.admin, "inbox", paused.ID, true); err != nil {
		t.Fatal(err)
	}
	gone := r.subscribe(t, rc, webhook.CreateInput{})
	if err := r.hooks.Delete(r.admin, "inbox", gone.ID); err != nil {
		t.Fatal(err)
	}
	notes := r.subscribe(t, rc, webhook.CreateInput{Events: []webhook.EventFilter{{Kind: board.EventNoteAdded}}})
	a := r.create(t, "Fix the login page")
	r.move(t, a, board.StatusDoing)
	b := r.create(t, "Pick a database")
	r.move(t, a, board.StatusDone)

	recs := r.records(t)
	evs := streamEvents(t, recs)
	if len(evs) != 4 {
		t.Fatalf("the stream holds %d events, want 4", len(evs))
	}
	f := r.fanout(t)
	r.fanOut(t, f, recs)
	r.fanOut(t, f, recs) // a batch Lambda hands over again
	got := r.drain(t)

	// want and have: the event ids per group, in order.
	want, have := map[string][]string{}, map[string][]string{}
	for _, ev := range evs {
		want[all.ID+"/"+ev.TicketID] = append(want[all.ID+"/"+ev.TicketID], ev.ID)
		want[paused.ID+"/"+ev.TicketID] = append(want[paused.ID+"/"+ev.TicketID], ev.ID)
		if ev.Type == board.EventTicketMoved && ev.To == string(board.StatusDone) {
			want[toDone.ID+"/"+ev.TicketID] = append(want[toDone.ID+"/"+ev.TicketID], ev.ID)
		}
	}
	for _, q := range got {
		if q.group != q.d.Group() || q.dedup != q.d.Dedup() {
			t.Errorf("message of %s/%s has group %q and deduplication id %q", q.d.Subscription, q.d.Event.ID, q.group, q.dedup)
		}
		have[q.group] = append(have[q.group], q.d.Event.ID)
	}
	if len(got) != 9 || len(have) != len(want) {
		t.Errorf("%d messages in %d groups, want 9 in %d: %v", len(got), len(have), len(want), have)
	}
	for g, ids := range want {
		if !slices.Equal(have[g], ids) {
			t.Errorf("group %s holds %v, want %v", g, have[g], ids)
		}
	}
	for _, s := range []webhook.Subscription{gone, notes} {
		for g := range have {
			if strings.HasPrefix(g, s.ID+"/") {
				t.Errorf("subscription %s (deleted or filtered out) was queued %v", s.ID, have[g])
			}
		}
	}
	if _, ok := have[all.ID+"/"+b]; !ok {
		t.Errorf("no group for ticket %s", b)
	}
	r.checkGranted(t)
}

// failingQueue refuses its second Enqueue.
type failingQueue struct{ calls int }

func (q *failingQueue) Enqueue(context.Context, []webhook.Delivery) error {
	q.calls++
	if q.calls == 2 {
		return errors.New("throttled")
	}
	return nil
}

// A record whose deliveries could not be queued is reported, and nothing
// after it is queued: Lambda hands the batch over again from it.
func TestFanoutReportsTheFirstRecordItCouldNotQueue(t *testing.T) {
	r := newRig(t)
	rc := newReceiver(t)
	r.subscribe(t, rc, webhook.CreateInput{})
	a := r.create(t, "one")
	r.move(t, a, board.StatusDoing)
	r.move(t, a, board.StatusDone)
	var recs []events.DynamoDBEventRecord
	for _, rec := range r.records(t) {
		if len(streamEvents(t, []events.DynamoDBEventRecord{rec})) == 1 {
			recs = append(recs, rec)
		}
	}
	if len(recs) != 3 {
		t.Fatalf("%d event records, want 3", len(recs))
	}
	q := &failingQueue{}
	f := &Fanout{hooks: r.hooks, queue: q, log: slog.New(slog.DiscardHandler)}
	resp, err := f.Handle(t.Context(), events.DynamoDBEvent{Records: recs})
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != recs[1].Change.SequenceNumber || q.calls != 2 {
		t.Errorf("answer %+v, %v after %d enqueues; want the second record reported and the third not queued", resp, err, q.calls)
	}
}

// The sender posts each queued delivery signed the Standard Webhooks way;
// a failing one is reported with the messages after it in its group and
// comes back after the retry step (the visibility it set), keeping its
// ticket's order, while another ticket's deliveries go on.
func TestSenderPostsInOrderAndRetriesAfterTheStep(t *testing.T) {
	r := newRig(t)
	rc := newReceiver(t)
	r.subscribe(t, rc, webhook.CreateInput{})
	a := r.create(t, "Fix the login page")
	r.move(t, a, board.StatusDoing)
	r.move(t, a, board.StatusDone)
	b := r.create(t, "Pick a database")
	recs := r.records(t)
	evs := streamEvents(t, recs)
	first := evs[0]
	if first.TicketID != a {
		t.Fatalf("first event %+v", first)
	}
	var failedAt, retriedAt time.Time
	var mu sync.Mutex
	rc.answer = func(id string, n int) int {
		mu.Lock()
		defer mu.Unlock()
		if id != first.ID {
			return http.StatusNoContent
		}
		if n == 0 {
			failedAt = time.Now()
			return http.StatusInternalServerError
		}
		retriedAt = time.Now()
		return http.StatusOK
	}
	r.fanOut(t, r.fanout(t), recs)
	const step = 2 * time.Second
	s := r.sender(t, "LEDGER_WEBHOOK_RETRY", step.String())

	deadline := time.Now().Add(time.Minute)
	reported := false
	for len(rc.deliveries()) < len(evs)+1 {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute the receiver has %+v", rc.deliveries())
		}
		ev, err := r.queue.Receive(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.Records) == 0 {
			time.Sleep(50 * time.Millisecond) // polling the queue, as Lambda's poller does
			continue
		}
		r.as("sender")
		resp, err := s.Handle(t.Context(), ev)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.BatchItemFailures) > 0 && !reported {
			reported = true
			var groupA []string
			for _, m := range ev.Records {
				if m.Attributes["MessageGroupId"] != "" && strings.HasSuffix(m.Attributes["MessageGroupId"], "/"+a) {
					groupA = append(groupA, m.MessageId)
				}
			}
			var failed []string
			for _, f := range resp.BatchItemFailures {
				failed = append(failed, f.ItemIdentifier)
			}
			if !slices.Equal(failed, groupA) {
				t.Errorf("reported %v, want the failed message and those after it in its group %v", failed, groupA)
			}
		}
		if err := r.queue.Settle(t.Context(), ev, resp); err != nil {
			t.Fatal(err)
		}
	}
	got := rc.deliveries()
	perTicket := map[string][]string{}
	for _, d := range got {
		if d.Err != nil {
			t.Errorf("delivery %s fails the Standard Webhooks check: %v", d.ID, d.Err)
		}
		if d.Status < 300 {
			perTicket[d.Ticket] = append(perTicket[d.Ticket], d.ID)
		}
	}
	for _, tk := range []string{a, b} {
		var want []string
		for _, ev := range evs {
			if ev.TicketID == tk {
				want = append(want, ev.ID)
			}
		}
		if !slices.Equal(perTicket[tk], want) {
			t.Errorf("ticket %s's deliveries taken: %v, want %v", tk, perTicket[tk], want)
		}
	}
	var failures []string
	for _, d := range got {
		if d.Status >= 300 {
			failures = append(failures, d.ID)
		}
	}
	if len(got) != len(evs)+1 || !slices.Equal(failures, []string{first.ID}) {
		t.Errorf("the receiver saw %+v: want one failure (%s), then each event once", got, first.ID)
	}
	mu.Lock()
	gap := retriedAt.Sub(failedAt)
	mu.Unlock()
	if gap < step-500*time.Millisecond {
		t.Errorf("the failed delivery came back after %v, before its retry step %v", gap, step)
	}
	r.checkGranted(t)
}

// After failing for the give-up window the subscription is paused with
// the reason; its delivery waits in the queue, unposted, and so do the
// events after the pause.
func TestSenderPausesAfterTheGiveUpWindow(t *testing.T) {
	r := newRig(t)
	rc := newReceiver(t)
	rc.answer = func(string, int) int { return http.StatusServiceUnavailable }
	sub := r.subscribe(t, rc, webhook.CreateInput{})
	r.create(t, "Fix the login page")
	recs := r.records(t)
	f := r.fanout(t)
	r.fanOut(t, f, recs)
	s := r.sender(t, "LEDGER_WEBHOOK_RETRY", "1s", "LEDGER_WEBHOOK_GIVE_UP", "1s")

	deadline := time.Now().Add(time.Minute)
	for !r.sub(t, sub.ID).Paused {
		if time.Now().After(deadline) {
			t.Fatalf("not paused after a minute; the receiver saw %+v", rc.deliveries())
		}
		ev, err := r.queue.Receive(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.Records) == 0 {
			time.Sleep(50 * time.Millisecond) // polling the queue, as Lambda's poller does
			continue
		}
		r.as("sender")
		resp, err := s.Handle(t.Context(), ev)
		if err != nil || len(resp.BatchItemFailures) != 1 {
			t.Fatalf("a failing delivery: %+v, %v", resp, err)
		}
		if err := r.queue.Settle(t.Context(), ev, resp); err != nil {
			t.Fatal(err)
		}
	}
	got := r.sub(t, sub.ID)
	if !strings.Contains(got.PausedReason, "deliveries failed for 1s") || !strings.Contains(got.PausedReason, "status 503") {
		t.Errorf("paused with %q", got.PausedReason)
	}
	if n := len(rc.deliveries()); n != 2 {
		t.Errorf("%d posts, want 2 (a failure, then the one after the window)", n)
	}
	if ev, err := r.queue.Receive(t.Context(), 10); err != nil || len(ev.Records) != 0 {
		t.Errorf("the held delivery is visible at once (%d messages, %v); it waits %v", len(ev.Records), err, webhook.PausedRecheck)
	}
	// An event after the pause is queued too, and waits unposted like the
	// held one: resuming sends both, as the local loop's cursor would.
	r.create(t, "after the pause")
	r.fanOut(t, f, r.records(t)[len(recs):])
	ev, err := r.queue.Receive(t.Context(), 10)
	if err != nil || len(ev.Records) != 1 {
		t.Fatalf("after the pause %d messages are visible (%v), want the new event's 1", len(ev.Records), err)
	}
	r.as("sender")
	resp, err := s.Handle(t.Context(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Errorf("the paused subscription's new delivery: %+v, %v; want it kept in the queue", resp, err)
	}
	if n := len(rc.deliveries()); n != 2 {
		t.Errorf("%d posts after the pause, want still 2", n)
	}
	r.checkGranted(t)
}

func (r *rig) sub(t *testing.T, id string) webhook.Subscription {
	t.Helper()
	s, err := r.store.GetSubscription(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stubHooks answers SendQueued from a table by event id, recording calls.
type stubHooks struct {
	mu    sync.Mutex
	out   map[string]webhook.Outcome
	err   map[string]error
	calls []string
}

func (h *stubHooks) SendQueued(_ context.Context, d webhook.Delivery, _ int) (webhook.Outcome, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, d.Event.ID)
	if err := h.err[d.Event.ID]; err != nil {
		return webhook.Outcome{}, err
	}
	if o, ok := h.out[d.Event.ID]; ok {
		return o, nil
	}
	return webhook.Outcome{Done: true}, nil
}

// waitQueue records the waits set.
type waitQueue struct {
	mu    sync.Mutex
	waits map[string]time.Duration
}

func (q *waitQueue) Wait(_ context.Context, receipt string, wait time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waits[receipt] = wait
	return nil
}

// Within a batch, a group stops at its first failure: the messages after
// it are reported too, unsent, waiting as long; other groups go on; a
// failure that is not the receiver's waits retryAfterError. The messages
// after a failure are made visible at once: the queue holds them behind it.
func TestSenderStopsAGroupAtItsFirstFailure(t *testing.T) {
	msg := func(id, group string) events.SQSMessage {
		return events.SQSMessage{MessageId: "m-" + id, ReceiptHandle: "r-" + id, Body: `{"subscription":"wh_1","event":{"id":"` + id + `","workspace":"inbox"}}`,
			Attributes: map[string]string{"MessageGroupId": group, "ApproximateReceiveCount": "1"}}
	}
	h := &stubHooks{out: map[string]webhook.Outcome{"a1": {Wait: 5 * time.Second}}, err: map[string]error{"c1": errors.New("store down")}}
	q := &waitQueue{waits: map[string]time.Duration{}}
	s := &Sender{hooks: h, queue: q, log: slog.New(slog.DiscardHandler)}
	resp, err := s.Handle(t.Context(), events.SQSEvent{Records: []events.SQSMessage{
		msg("a1", "wh_1/A"), msg("b1", "wh_1/B"), msg("a2", "wh_1/A"), msg("c1", "wh_1/C"), msg("b2", "wh_1/B"), msg("c2", "wh_1/C")}})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	if want := []string{"m-a1", "m-a2", "m-c1", "m-c2"}; !slices.Equal(failed, want) {
		t.Errorf("reported %v, want %v", failed, want)
	}
	slices.Sort(h.calls)
	if want := []string{"a1", "b1", "b2", "c1"}; !slices.Equal(h.calls, want) {
		t.Errorf("sent %v, want %v (nothing after a group's failure)", h.calls, want)
	}
	want := map[string]time.Duration{"r-a1": 5 * time.Second, "r-a2": 0, "r-c1": retryAfterError, "r-c2": 0}
	if len(q.waits) != len(want) {
		t.Errorf("waits %v, want %v", q.waits, want)
	}
	for k, v := range want {
		if q.waits[k] != v {
			t.Errorf("waits %v, want %v", q.waits, want)
			break
		}
	}
}
