package dynamo_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamotest"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// conflicted is an endpoint under a model of DynamoDB's transaction
// conflicts (dynamotest.Injector): every store opened on it sends through
// the same injector, so the instances share its lock table, and each has
// its own client with the production retryer, retry quota included, as a
// Lambda instance has. On moto the injector gives the endpoint one write at
// a time (in place of SerializeWrites, behind which nothing could overlap).
type conflicted struct {
	ep    endpoint
	in    *dynamotest.Injector
	table string
}

func newConflicted(t testing.TB, ep endpoint) *conflicted {
	c := &conflicted{ep: ep, in: &dynamotest.Injector{Serialize: ep.name == "moto"}, table: tableName()}
	c.open(t, dynamo.Config{}) // creates the table
	return c
}

// open is another store instance on the shared table.
func (c *conflicted) open(t testing.TB, cfg dynamo.Config) *dynamo.Store {
	t.Helper()
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(c.ep.url),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      dynamo.NewRetryer(),
		HTTPClient:   c.in.HTTPClient(),
	})
	cfg.Client, cfg.Table, cfg.CreateTable = client, c.table, true
	s, err := dynamo.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open on %s under the conflict model: %v", c.ep.name, err)
	}
	return s
}

// TestContractUnderConflicts runs the contract's races with DynamoDB's
// conflict rule in force.
func TestContractUnderConflicts(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.RunGroup(t, "Concurrency", func(t *testing.T) storetest.Store {
				return newConflicted(t, ep.newEndpoint(t)).open(t, dynamo.Config{})
			})
		})
	}
}

// TestSharedUnderConflicts runs the races across instances with DynamoDB's
// conflict rule in force: the instances' transactions now meet on items as
// they would on DynamoDB.
func TestSharedUnderConflicts(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			storetest.RunShared(t, func(t *testing.T) storetest.Instances {
				c := newConflicted(t, ep.newEndpoint(t))
				var cfg dynamo.Config // the production budget on minidyn
				if ep.name == "moto" {
					// As in TestShared: moto answers one write at a time, slowly,
					// and the packages of make test share one moto, so a create
					// there can wait behind the other instances' turns for longer
					// than DynamoDB would ever make it.
					cfg.CounterRaceBudget = 2 * time.Minute
				}
				return func(t *testing.T) storetest.Store { return c.open(t, cfg) }
			})
		})
	}
}

// TestCountsExactAfterConcurrentMoves: 16 clients (8 on moto) move 10
// tickets 4 times each at once under the conflict model, through one instance or split over
// two, with a list (which caches the counts) after every move. Read right
// after the writes end, the counts are exact: the workspace's, from any
// instance, and the per-status totals a writing instance's lists give from
// its own cached counts when it alone wrote (another instance's moves show
// there within PolicyTTL, docs/dynamodb.md).
func TestCountsExactAfterConcurrentMoves(t *testing.T) {
	for _, ep := range endpoints() {
		for _, instances := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%d instances", ep.name, instances), func(t *testing.T) {
				t.Parallel()
				testCountsAfterMoves(t, ep.newEndpoint(t), instances)
			})
		}
	}
}

func testCountsAfterMoves(t *testing.T, e endpoint, instances int) {
	c := newConflicted(t, e)
	svcs := make([]*board.Service, instances)
	for i := range svcs {
		svcs[i] = loggedService(t, c.open(t, dynamo.Config{}))
	}
	ctx := aiCtx(t)
	const tickets, moves = 10, 4
	clients := 16
	if e.name == "moto" {
		// moto answers one write at a time, slowly, and a transaction holds
		// its items until its answer: on one hot workspace item, 16 clients
		// there wait past the store's budget, which measures moto.
		clients = 8
	}
	for i := range tickets {
		mustCreate(t, svcs[0], fmt.Sprintf("seed-%d", i), "to move")
	}
	statuses := []board.Status{board.StatusDoing, board.StatusWaitingHuman, board.StatusWaitingAI, board.StatusHold, board.StatusCandidate}
	errs := make([]error, clients)
	storetest.Together(clients, func(i int) {
		svc := svcs[i%instances]
		for k := range moves {
			id := fmt.Sprintf("inbox-%d", (i+k)%tickets+1)
			st := statuses[(i*moves+k)%len(statuses)]
			if _, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("m%02d-%d", i, k), ID: id, Status: st}); err != nil {
				errs[i] = err
				return
			}
			if _, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Status: st, Limit: 1}); err != nil {
				errs[i] = err
				return
			}
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	fresh := newService(t, c.open(t, dynamo.Config{}))
	held := map[board.Status]int{}
	for i := range tickets {
		d, err := fresh.GetTicket(ctx, board.TicketIDInput{ID: fmt.Sprintf("inbox-%d", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		held[d.Ticket.Status]++
	}
	for i, svc := range append([]*board.Service{fresh}, svcs...) {
		ws, err := svc.ListWorkspaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws.Workspaces {
			if w.Slug != "inbox" {
				continue
			}
			for _, st := range board.Statuses {
				if w.Counts[st] != held[st] {
					t.Errorf("reader %d, list_workspaces: %s %d, the tickets hold %d", i, st, w.Counts[st], held[st])
				}
			}
		}
	}
	if instances > 1 {
		return
	}
	for _, st := range board.Statuses {
		list, err := svcs[0].ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Status: st, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if list.Total != nil && *list.Total != held[st] {
			t.Errorf("the writer's list of %s: total %d, the tickets hold %d (an adjustment of its own was lost)", st, *list.Total, held[st])
		}
	}
}

// tlog writes a store's log lines into the test's log.
type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// loggedService is newService with the service's log in the test's log, so
// an internal error shows its cause.
func loggedService(t testing.TB, s *dynamo.Store) *board.Service {
	t.Helper()
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "https://board.test", Logger: slog.New(slog.NewTextHandler(tlog{t}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// variant is a way to open one store: on an endpoint as it is, or under the
// conflict model.
type variant struct {
	name string
	open func(t *testing.T) *dynamo.Store
}

// conflictVariants lists each endpoint plain (moto with SerializeWrites)
// and under the conflict model, for the hardening tests that run both.
func conflictVariants() []variant {
	var out []variant
	for _, ep := range endpoints() {
		out = append(out,
			variant{ep.name, func(t *testing.T) *dynamo.Store {
				return openStore(t, ep.newEndpoint(t), nil, dynamo.Config{SerializeWrites: ep.name == "moto"})
			}},
			variant{ep.name + "/conflicts", func(t *testing.T) *dynamo.Store {
				return newConflicted(t, ep.newEndpoint(t)).open(t, dynamo.Config{})
			}})
	}
	return out
}

// TestConflictRetriesAreTheStoresAndBounded: a write whose ticket another
// transaction holds is sent again by the store itself, after backoffs,
// until its budget (Config.CounterRaceBudget) has passed; then the call
// fails with a conflict to retry (not an internal error) and nothing
// written, long before the other transaction lets go,
// and the same request_id succeeds once it has.
func TestConflictRetriesAreTheStoresAndBounded(t *testing.T) {
	t.Parallel()
	const hold = 5 * time.Second
	ep := minidyn(t)
	c := &conflicted{ep: ep, in: &dynamotest.Injector{Hold: hold}, table: tableName()}
	// Seeded around the injector, so the seed waits for no hold.
	plain := newService(t, openStore(t, ep, nil, dynamo.Config{Table: c.table}))
	mustCreate(t, plain, "seed", "held")
	svc := loggedService(t, c.open(t, dynamo.Config{CounterRaceBudget: 300 * time.Millisecond}))

	raw := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep.url),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), HTTPClient: c.in.HTTPClient()})
	held := make(chan error, 1)
	go func() {
		_, err := raw.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(c.table),
				Key:                 map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "T#inbox-1"}, "sk": &types.AttributeValueMemberS{Value: "T"}},
				ConditionExpression: aws.String("attribute_exists(pk)")}},
			{Put: &types.Put{TableName: aws.String(c.table), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "other"}, "sk": &types.AttributeValueMemberS{Value: "x"}}}},
		}})
		held <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for c.in.Held() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the holding transaction never took its items")
		}
		time.Sleep(time.Millisecond)
	}

	title := "while held"
	in := board.UpdateTicketInput{RequestID: "u1", ID: "inbox-1", Title: &title}
	start := time.Now()
	_, err := svc.UpdateTicket(aiCtx(t), in)
	if board.ErrorCode(err) != board.CodeConflict {
		t.Fatalf("update of a held ticket past the budget: %v (code %s), want a conflict to retry, not an internal error", err, board.ErrorCode(err))
	}
	if took := time.Since(start); took >= hold-time.Second {
		t.Errorf("the update gave up after %v, want its budget (300ms), not the other transaction's hold (%v)", took, hold)
	}
	if n := c.in.Stats().Refused; n < 2 {
		t.Errorf("%d attempts refused, want the store to have sent the write again", n)
	}
	if d, err := plain.GetTicket(aiCtx(t), board.TicketIDInput{ID: "inbox-1"}); err != nil || d.Ticket.Title != "held" {
		t.Fatalf("after the failed update: %q %v, want nothing written", d.Ticket.Title, err)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	res, err := svc.UpdateTicket(aiCtx(t), in)
	if err != nil || res.Ticket.Title != title || res.Replayed {
		t.Fatalf("the same request_id after the hold: %+v %v, want the update done", res.Ticket, err)
	}
}
