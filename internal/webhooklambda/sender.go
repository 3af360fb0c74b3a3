package webhooklambda

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/sqsqueue"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// retryAfterError is how long a message waits after a failure that was not
// the receiver's (the store could not be read): the queue tries it again.
const retryAfterError = 30 * time.Second

// SenderTableActions are the DynamoDB operations the sender sends:
// opening the store (BatchGetItem, a conditional PutItem), the
// subscription and the sealing key (GetItem; PutItem the first time), the
// delivery log (PutItem, a Query of its keys, BatchWriteItem deleting past
// the newest 100) and its progress or pause (UpdateItem). template.yaml
// grants these and no more.
var SenderTableActions = []string{"BatchGetItem", "BatchWriteItem", "GetItem", "PutItem", "Query", "UpdateItem"}

// Sender posts queued deliveries.
type Sender struct {
	hooks interface {
		SendQueued(ctx context.Context, d webhook.Delivery, tries int) (webhook.Outcome, error)
	}
	queue interface {
		Wait(ctx context.Context, receipt string, wait time.Duration) error
	}
	log *slog.Logger
}

// NewSender opens the table (LEDGER_TABLE; DYNAMODB_ENDPOINT and
// LEDGER_DYNAMODB_SERIALIZE_WRITES for test endpoints), the queue
// (LEDGER_WEBHOOK_QUEUE_URL; SQS_ENDPOINT for a test endpoint) and reads
// the webhooks' settings (LEDGER_WEBHOOK_RETRY, LEDGER_WEBHOOK_GIVE_UP,
// LEDGER_WEBHOOK_ALLOW_PRIVATE) and LEDGER_BASE_URL, which tickets link to.
func NewSender(ctx context.Context, getenv func(string) string, log *slog.Logger) (*Sender, error) {
	table := getenv("LEDGER_TABLE")
	if table == "" {
		return nil, fmt.Errorf("LEDGER_TABLE is not set")
	}
	settings, err := webhook.LoadSettings(getenv)
	if err != nil {
		return nil, err
	}
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: getenv("DYNAMODB_ENDPOINT"), Table: table,
		SerializeWrites: getenv("LEDGER_DYNAMODB_SERIALIZE_WRITES") == "1"}, log)
	if err != nil {
		return nil, err
	}
	q, err := sqsqueue.New(sqsqueue.Config{URL: getenv("LEDGER_WEBHOOK_QUEUE_URL"), Endpoint: getenv("SQS_ENDPOINT")})
	if err != nil {
		return nil, err
	}
	cfg := webhook.Config{Store: store, Secrets: store, Workspaces: store, BaseURL: getenv("LEDGER_BASE_URL"), Logger: log}
	settings.Apply(&cfg)
	return &Sender{hooks: webhook.New(cfg), queue: q, log: log}, nil
}

// Handle sends a batch: the groups (a subscription's deliveries about one
// ticket) side by side, each in order. Once one of a group's messages
// fails, the ones after it are not sent: they are reported too, and wait
// behind it in the queue, so the group keeps its order.
func (s *Sender) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var groups [][]int
	at := map[string]int{}
	for i, m := range ev.Records {
		g := m.Attributes["MessageGroupId"]
		if j, ok := at[g]; ok {
			groups[j] = append(groups[j], i)
			continue
		}
		at[g] = len(groups)
		groups = append(groups, []int{i})
	}
	failed := make([]bool, len(ev.Records))
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(func() { s.sendGroup(ctx, ev.Records, g, failed) })
	}
	wg.Wait()
	var resp events.SQSEventResponse
	sent := 0
	for i, m := range ev.Records {
		if failed[i] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		} else {
			sent++
		}
	}
	s.log.Info("queue batch", "messages", len(ev.Records), "done", sent, "failed", len(resp.BatchItemFailures))
	return resp, nil
}

// sendGroup sends one group's messages (indexes into recs, in order) and
// marks in failed those that stay on the queue.
func (s *Sender) sendGroup(ctx context.Context, recs []events.SQSMessage, group []int, failed []bool) {
	for k, i := range group {
		wait, ok := s.sendOne(ctx, recs[i])
		if ok {
			continue
		}
		for _, j := range group[k:] {
			failed[j] = true
			// The ones after it are visible again at once: a FIFO queue
			// hands out none of a group while one of it is in flight, so
			// they follow the failed one, in order, as soon as it is taken.
			if err := s.queue.Wait(ctx, recs[j].ReceiptHandle, wait); err != nil {
				// It comes back after the queue's visibility timeout instead.
				s.log.Warn("setting a webhook delivery's retry time failed", "message_id", recs[j].MessageId, "err", err)
			}
			wait = 0
		}
		return
	}
}

// sendOne sends one message: ok when it is done with (delivered, or
// nothing to deliver), else how long it waits.
func (s *Sender) sendOne(ctx context.Context, m events.SQSMessage) (time.Duration, bool) {
	d, err := sqsqueue.Decode(m.Body)
	if err != nil {
		// Trying it again would fail again: it is logged and dropped.
		s.log.Error("a queued message is no webhook delivery; it is dropped", "message_id", m.MessageId, "err", err)
		return 0, true
	}
	tries, err := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
	if err != nil || tries < 1 {
		tries = 1
	}
	out, err := s.hooks.SendQueued(ctx, d, tries)
	switch {
	case err != nil:
		s.log.Error("a webhook delivery could not be made; the queue tries it again",
			"subscription", d.Subscription, "event_id", d.Event.ID, "err", err)
		return retryAfterError, false
	case out.Done:
		return 0, true
	}
	s.log.Info("webhook delivery failed", "subscription", d.Subscription, "event_id", d.Event.ID,
		"tries", tries, "wait", out.Wait.String(), "paused", out.Paused)
	return out.Wait, false
}
