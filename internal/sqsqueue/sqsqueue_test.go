package sqsqueue

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

func TestVisibilityIsWholeSecondsUpToTheBound(t *testing.T) {
	for wait, want := range map[time.Duration]int32{0: 0, 20 * time.Millisecond: 1, 5 * time.Second: 5, time.Minute: 60,
		6 * time.Hour: 21600, 12 * time.Hour: 42600, 48 * time.Hour: 42600} {
		if got := visibility(wait); got != want {
			t.Errorf("visibility(%v) = %d, want %d", wait, got, want)
		}
	}
}

// More deliveries than one request takes all reach the queue, each once
// however often they are sent; a message made to wait holds the rest of
// its group behind it.
func TestEnqueueSendsEveryDeliveryOnce(t *testing.T) {
	endpoint := testbackends.MotoEndpoint(t)
	testbackends.FakeAWSCredentials(t)
	ctx := t.Context()
	fifo, err := lambdatest.NewFIFOQueue(ctx, endpoint, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	q, err := New(Config{URL: fifo.URL, Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	var ds []webhook.Delivery
	for i := range 23 {
		ds = append(ds, webhook.Delivery{Subscription: fmt.Sprintf("wh_%d", i%3),
			Event: board.Event{ID: fmt.Sprintf("ev-%02d", i), Workspace: "inbox", TicketID: fmt.Sprintf("inbox-%d", i%5)}})
	}
	for range 2 {
		if err := q.Enqueue(ctx, ds); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	waited := ""
	for {
		ev, err := fifo.Receive(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.Records) == 0 {
			break
		}
		var resp events.SQSEventResponse
		for _, m := range ev.Records {
			d, err := Decode(m.Body)
			if err != nil {
				t.Fatal(err)
			}
			seen[d.Dedup()]++
			if waited == "" { // the first one waits an hour instead of being deleted
				waited = d.Dedup()
				if err := q.Wait(ctx, m.ReceiptHandle, time.Hour); err != nil {
					t.Fatal(err)
				}
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		if err := fifo.Settle(ctx, ev, resp); err != nil {
			t.Fatal(err)
		}
	}
	// Every delivery is handed out once, but those queued after the one
	// that waits in its group: the group is held behind it.
	group := ""
	for _, d := range ds {
		if d.Dedup() == waited {
			group = d.Group()
		}
	}
	held := 0
	for _, d := range ds {
		_, out := seen[d.Dedup()]
		behind := d.Group() == group && d.Dedup() > waited
		if behind {
			held++
		}
		if out == behind {
			t.Errorf("%s (group %s) handed out: %v; the waiting %s holds its group", d.Dedup(), d.Group(), out, waited)
		}
	}
	if held == 0 {
		t.Error("nothing was queued behind the waiting delivery: the test shows no group held")
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s handed out %d times", k, n)
		}
	}
	if _, err := Decode(`{"subscription":""}`); err == nil {
		t.Error("a message without a subscription decodes")
	}
}
