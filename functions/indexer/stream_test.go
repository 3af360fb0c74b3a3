package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// streamBoard is a table with a stream (as template.yaml declares it) and
// a service on a store that leaves to the stream consumer what does not
// fit a write's transaction, as the deployed MCP function does.
type streamBoard struct {
	endpoint, table, streamARN string
	client                     *dynamodb.Client
	svc                        *board.Service
}

func newStreamBoard(t *testing.T, ctx context.Context, endpoint string) *streamBoard {
	t.Helper()
	st := testbackends.NewStreamTable(t, ctx, endpoint, dynamo.Config{WordsByStream: true, SerializeWrites: true})
	b := &streamBoard{endpoint: endpoint, table: st.Table, streamARN: st.StreamARN, client: st.Client}
	var err error
	if b.svc, err = board.NewService(board.Config{Store: st.Store}); err != nil {
		t.Fatal(err)
	}
	return b
}

// search is list_tickets with a query, as ids.
func (b *streamBoard) search(t *testing.T, ctx context.Context, q string) []string {
	t.Helper()
	l, err := b.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: q})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	var ids []string
	for _, tk := range l.Tickets {
		ids = append(ids, tk.ID)
	}
	return ids
}

// wordItems counts the word index items of inbox under a word's first two
// runes.
func (b *streamBoard) wordItems(t *testing.T, ctx context.Context, firstTwo string) int {
	t.Helper()
	out, err := b.client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(b.table), KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "S#inbox#" + firstTwo}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

// records reads every record of the table's stream from moto.
func (b *streamBoard) records(t *testing.T, ctx context.Context) []events.DynamoDBEventRecord {
	t.Helper()
	recs, err := lambdatest.StreamRecords(ctx, b.endpoint, b.streamARN)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// words is n distinct words with a prefix: more than a write's transaction
// holds beside its other items.
func words(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d ", prefix, i)
	}
	return b.String()
}

// writeTickets makes the changes the consumer has to finish: a ticket
// whose body words do not all fit its create (consume then runs the
// consumer over the stream so far), then an edit that replaces every one
// of them, whose deletions do not all fit its transaction either.
func writeTickets(t *testing.T, ctx context.Context, b *streamBoard, consume func()) string {
	t.Helper()
	ctx = board.WithPrincipal(ctx, board.Principal{Author: "ai:indexer-test", Source: board.SourceMCP})
	res, err := b.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "c1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Printer jam", Body: words("alpha", 150)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.search(t, ctx, "printer "); !slices.Equal(got, []string{res.Ticket.ID}) {
		t.Fatalf("the title is findable at once: %v", got)
	}
	if got := b.search(t, ctx, "alpha149 "); got != nil {
		t.Fatalf("alpha149 found before the consumer ran (%v): the test does not exercise the consumer", got)
	}
	consume()
	if got := b.search(t, ctx, "alpha149 "); !slices.Equal(got, []string{res.Ticket.ID}) {
		t.Fatalf("after the consumer, alpha149 finds %v", got)
	}
	body := words("beta", 150)
	if _, err := b.svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u1", ID: res.Ticket.ID, Body: &body}); err != nil {
		t.Fatal(err)
	}
	if b.wordItems(t, ctx, "al") == 0 {
		t.Fatal("every alpha item was deleted by the edit's transaction: the test does not exercise the consumer's deletions")
	}
	if got := b.search(t, ctx, "alpha149 "); got != nil {
		t.Fatalf("alpha149 still finds %v after the edit removed it (its item is only stale)", got)
	}
	if got := b.search(t, ctx, "beta149 "); got != nil {
		t.Fatalf("beta149 found before the consumer ran (%v): the test does not exercise the consumer", got)
	}
	return res.Ticket.ID
}

// checkIndexed: the body's last words are found, and no item of a word
// the edit removed is left.
func checkIndexed(t *testing.T, ctx context.Context, b *streamBoard, id, when string) {
	t.Helper()
	if got := b.search(t, ctx, "beta149 "); !slices.Equal(got, []string{id}) {
		t.Errorf("%s: beta149 finds %v, want %s", when, got, id)
	}
	if got := b.search(t, ctx, "alpha0 "); got != nil {
		t.Errorf("%s: alpha0 finds %v", when, got)
	}
	if n := b.wordItems(t, ctx, "al"); n != 0 {
		t.Errorf("%s: %d items of removed words left", when, n)
	}
	if n := b.wordItems(t, ctx, "be"); n != 150 {
		t.Errorf("%s: %d beta items, want 150", when, n)
	}
}

// The consumer, fed the records moto's DynamoDB Streams holds for a create
// and an edit, indexes the body words the transactions had no room for
// and deletes the removed ones; the same batch delivered again changes
// nothing.
func TestIndexerAppliesStreamRecords(t *testing.T) {
	endpoint := testbackends.MotoEndpoint(t)
	ctx := context.Background()
	b := newStreamBoard(t, ctx, endpoint)
	x, err := newIndexer(ctx, func(k string) string {
		return map[string]string{"LEDGER_TABLE": b.table, "DYNAMODB_ENDPOINT": endpoint, "LEDGER_DYNAMODB_SERIALIZE_WRITES": "1"}[k]
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	id := writeTickets(t, ctx, b, func() {
		if resp, err := x.handle(ctx, events.DynamoDBEvent{Records: b.records(t, ctx)}); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("the create's records: %+v, %v", resp, err)
		}
	})
	recs := b.records(t, ctx) // the create's again, then the edit's
	for _, round := range []string{"delivery", "redelivery"} {
		resp, err := x.handle(ctx, events.DynamoDBEvent{Records: recs})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("%s of %d records: %+v, %v", round, len(recs), resp, err)
		}
		checkIndexed(t, ctx, b, id, round)
	}
}

type failingWords struct{ calls int }

func (f *failingWords) IndexWordChange(context.Context, *board.Ticket, *board.Ticket, int) error {
	f.calls++
	if f.calls == 2 {
		return errors.New("throttled")
	}
	return nil
}

// A record that fails is reported, and nothing after it is applied: Lambda
// retries from it, keeping each ticket's records in order.
func TestIndexerReportsTheFirstFailure(t *testing.T) {
	recs := make([]events.DynamoDBEventRecord, 4)
	for i := range recs {
		recs[i].Change.SequenceNumber = fmt.Sprint(100 + i)
	}
	f := &failingWords{}
	x := &indexer{words: f, log: slog.New(slog.DiscardHandler)}
	resp, err := x.handle(context.Background(), events.DynamoDBEvent{Records: recs})
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "101" || f.calls != 2 {
		t.Errorf("response %+v, %v after %d calls; want the second record reported and the rest not applied", resp, err, f.calls)
	}
}

// The emulator test (emulator_test.go) is built only with -tags
// lambdaemulator: this says when a run left it out.
func TestLambdaEmulatorTestsAreBuilt(t *testing.T) { lambdatest.NeedEmulatorTests(t) }
