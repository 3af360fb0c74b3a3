package webhooklambda

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqsqueue"
	"github.com/ticket-ledger/ticket-ledger/internal/streamimage"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook/webhooktest"
)

// rig is the AWS path on moto: a table with a stream (as template.yaml
// declares it), the board and webhooks services on it, a FIFO queue, and
// the environment the functions would be given.
type rig struct {
	endpoint, table, streamARN string
	board                      *board.Service
	hooks                      *webhook.Service
	store                      *dynamo.Store
	queue                      *lambdatest.FIFOQueue
	admin                      context.Context
	n                          int
	// proxy stands between the functions and moto's DynamoDB, recording
	// the operations each sends (ops, by the function's name).
	proxy *lambdatest.DynamoProxy
	opsMu sync.Mutex
	ops   map[string]map[string]bool
	who   string // the function now running
}

func newRig(t *testing.T) *rig {
	t.Helper()
	endpoint := testbackends.MotoEndpoint(t)
	ctx := t.Context()
	st := testbackends.NewStreamTable(t, ctx, endpoint, dynamo.Config{SerializeWrites: true})
	r := &rig{endpoint: endpoint, table: st.Table, streamARN: st.StreamARN, store: st.Store}
	var err error
	if r.board, err = board.NewService(board.Config{Store: r.store}); err != nil {
		t.Fatal(err)
	}
	r.hooks = webhook.New(webhook.Config{Store: r.store, Secrets: r.store, Workspaces: r.store, AllowPrivate: true})
	if r.queue, err = lambdatest.NewFIFOQueue(ctx, endpoint, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	r.admin = board.WithPrincipal(ctx, board.Principal{Author: "human:alice", Role: board.RoleAdmin, Source: board.SourceREST})
	if r.proxy, err = lambdatest.StartDynamoProxy(endpoint); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.proxy.Close)
	r.ops = map[string]map[string]bool{}
	r.proxy.Observe = func(op string, _ []byte) {
		r.opsMu.Lock()
		defer r.opsMu.Unlock()
		if r.ops[r.who] == nil {
			r.ops[r.who] = map[string]bool{}
		}
		r.ops[r.who][op] = true
	}
	return r
}

// as names the function whose DynamoDB requests follow.
func (r *rig) as(who string) {
	r.opsMu.Lock()
	defer r.opsMu.Unlock()
	r.who = who
}

// checkGranted fails t when a function sent an operation it is not granted.
func (r *rig) checkGranted(t *testing.T) {
	t.Helper()
	r.opsMu.Lock()
	defer r.opsMu.Unlock()
	for who, granted := range map[string][]string{"fanout": FanoutTableActions, "sender": SenderTableActions} {
		for op := range r.ops[who] {
			if !slices.Contains(granted, op) {
				t.Errorf("the %s sent %s, which template.yaml does not grant it (%v)", who, op, granted)
			}
		}
	}
}

// env is the functions' environment, with more settings.
func (r *rig) env(more ...string) func(string) string {
	m := map[string]string{"LEDGER_TABLE": r.table, "DYNAMODB_ENDPOINT": r.proxy.URL, "LEDGER_DYNAMODB_SERIALIZE_WRITES": "1",
		"LEDGER_WEBHOOK_QUEUE_URL": r.queue.URL, "SQS_ENDPOINT": r.endpoint, "LEDGER_WEBHOOK_ALLOW_PRIVATE": "1"}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i]] = more[i+1]
	}
	return func(k string) string { return m[k] }
}

func (r *rig) fanout(t *testing.T) *Fanout {
	t.Helper()
	r.as("fanout")
	defer r.as("")
	f, err := NewFanout(t.Context(), r.env(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (r *rig) sender(t *testing.T, more ...string) *Sender {
	t.Helper()
	r.as("sender")
	defer r.as("")
	s, err := NewSender(t.Context(), r.env(more...), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *rig) rid() string { r.n++; return fmt.Sprintf("req-%d", r.n) }

func (r *rig) create(t *testing.T, title string) string {
	t.Helper()
	res, err := r.board.CreateTicket(r.admin, board.CreateTicketInput{RequestID: r.rid(), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Ticket.ID
}

func (r *rig) move(t *testing.T, id string, to board.Status) {
	t.Helper()
	if _, err := r.board.MoveTicket(r.admin, board.MoveTicketInput{RequestID: r.rid(), ID: id, Status: to, Reason: "because"}); err != nil {
		t.Fatal(err)
	}
}

func (r *rig) subscribe(t *testing.T, rc *receiver, in webhook.CreateInput) webhook.Subscription {
	t.Helper()
	in.Workspace, in.URL, in.RequestID = "inbox", rc.URL+"/hook", r.rid()
	c, err := r.hooks.Create(r.admin, in)
	if err != nil {
		t.Fatal(err)
	}
	rc.setSecret(c.Secret)
	return c.Subscription
}

// records is every record of the table's stream so far.
func (r *rig) records(t *testing.T) []events.DynamoDBEventRecord {
	t.Helper()
	recs, err := lambdatest.StreamRecords(t.Context(), r.endpoint, r.streamARN)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// streamEvents is the events among the stream's records, in stream order.
func streamEvents(t *testing.T, recs []events.DynamoDBEventRecord) []board.Event {
	t.Helper()
	var out []board.Event
	for _, rec := range recs {
		if rec.EventName != "INSERT" {
			continue
		}
		e, err := dynamo.EventFromImage(streamimage.Image(rec.Change.NewImage))
		if err != nil {
			t.Fatal(err)
		}
		if e != nil {
			out = append(out, *e)
		}
	}
	return out
}

// fanOut hands the stream's records to the fan-out as one batch.
func (r *rig) fanOut(t *testing.T, f *Fanout, recs []events.DynamoDBEventRecord) {
	t.Helper()
	r.as("fanout")
	defer r.as("")
	resp, err := f.Handle(t.Context(), events.DynamoDBEvent{Records: recs})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("fan-out of %d records: %+v, %v", len(recs), resp, err)
	}
}

// queued is one message taken off the queue.
type queued struct {
	group, dedup string
	d            webhook.Delivery
}

// drain takes every message off the queue (receiving and deleting), in
// the order the queue hands them.
func (r *rig) drain(t *testing.T) []queued {
	t.Helper()
	var out []queued
	for {
		ev, err := r.queue.Receive(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.Records) == 0 {
			return out
		}
		for _, m := range ev.Records {
			var q queued
			q.group, q.dedup = m.Attributes["MessageGroupId"], m.Attributes["MessageDeduplicationId"]
			if q.d, err = sqsqueue.Decode(m.Body); err != nil {
				t.Fatal(err)
			}
			out = append(out, q)
		}
		if err := r.queue.Settle(t.Context(), ev, events.SQSEventResponse{}); err != nil {
			t.Fatal(err)
		}
	}
}

// receiver is a loopback webhook endpoint that checks each request's
// signature with webhooktest.Verify (the specification's check, sharing no
// code with the sender), and answers what answer says.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	got    []received
	answer func(id string, n int) int // the status for event id's n-th request (0-based)
}

type received struct {
	ID, Ticket string
	Status     int
	Err        error
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{answer: func(string, int) int { return http.StatusNoContent }}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		rc.mu.Lock()
		id := req.Header.Get("webhook-id")
		n := 0
		for _, g := range rc.got {
			if g.ID == id {
				n++
			}
		}
		status := rc.answer(id, n)
		err := webhooktest.Verify(rc.secret, req.Header, body, time.Now(), 5*time.Minute)
		ticket := ""
		if i := strings.Index(string(body), `"ticket":{"id":"`); i >= 0 {
			ticket, _, _ = strings.Cut(string(body[i+len(`"ticket":{"id":"`):]), `"`)
		}
		rc.got = append(rc.got, received{ID: id, Ticket: ticket, Status: status, Err: err})
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = s
}

func (rc *receiver) deliveries() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}
