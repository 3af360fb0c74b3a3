package dynamotest_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamotest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// rig is a minidyn behind an injector, with a table of the store's schema
// and a client that sends every request once (no retries), so a test sees
// each answer as the SDK parsed it.
type rig struct {
	in     *dynamotest.Injector
	client *dynamodb.Client
	table  string
}

func newRig(t *testing.T, hold time.Duration) *rig {
	t.Helper()
	in := &dynamotest.Injector{Hold: hold}
	url := testbackends.StartMinidyn(t, nil).URL
	client := dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(url),
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:       in.HTTPClient(),
		RetryMaxAttempts: 1,
	})
	table := testbackends.TableName()
	if _, err := client.CreateTable(context.Background(), dynamo.CreateTableInput(table)); err != nil {
		t.Fatal(err)
	}
	return &rig{in: in, client: client, table: table}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func itemKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(pk), "sk": s("x")}
}

func (r *rig) put(pk string, extra ...string) types.TransactWriteItem {
	item := itemKey(pk)
	for i := 0; i+1 < len(extra); i += 2 {
		item[extra[i]] = s(extra[i+1])
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(r.table), Item: item}}
}

func (r *rig) check(pk string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(r.table), Key: itemKey(pk),
		ConditionExpression: aws.String("attribute_not_exists(pk)")}}
}

func (r *rig) transact(items ...types.TransactWriteItem) error {
	_, err := r.client.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

func (r *rig) exists(t *testing.T, pk string) bool {
	t.Helper()
	out, err := r.client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: itemKey(pk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Item) > 0
}

// holding starts a transaction on items and returns once the injector
// holds them; the transaction's error arrives on the channel.
func (r *rig) holding(t *testing.T, items ...types.TransactWriteItem) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.transact(items...) }()
	deadline := time.Now().Add(5 * time.Second)
	for r.in.Held() < len(items) {
		if time.Now().After(deadline) {
			t.Fatal("the first transaction never took its items")
		}
		time.Sleep(time.Millisecond)
	}
	return done
}

// TestOverlappingTransactionIsCancelledAsDynamoDBDoes: a transaction naming
// an item another holds (by a Put or a ConditionCheck) is cancelled with
// TransactionConflict in exactly those entries and None in the others, the
// SDK parses it as DynamoDB's TransactionCanceledException, the store's
// retryer takes it for contention, and nothing of it is applied.
func TestOverlappingTransactionIsCancelledAsDynamoDBDoes(t *testing.T) {
	r := newRig(t, 300*time.Millisecond)
	first := r.holding(t, r.put("A"), r.check("B"))

	err := r.transact(r.put("C"), r.put("A"), r.put("D"), r.check("B"))
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("overlapping transaction: %v (%T), want TransactionCanceledException", err, err)
	}
	want := []string{"None", "TransactionConflict", "None", "TransactionConflict"}
	if len(tce.CancellationReasons) != len(want) {
		t.Fatalf("reasons %+v, want %v", tce.CancellationReasons, want)
	}
	for i, w := range want {
		if got := aws.ToString(tce.CancellationReasons[i].Code); got != w {
			t.Errorf("reason %d: %q, want %q", i, got, w)
		}
	}
	if r.exists(t, "C") || r.exists(t, "D") {
		t.Error("a cancelled transaction's items were written")
	}
	if err := <-first; err != nil {
		t.Fatalf("the holding transaction: %v", err)
	}
	if !r.exists(t, "A") {
		t.Error("the holding transaction's Put is missing")
	}
	// Once the first is answered its items are free.
	if err := r.transact(r.put("C"), r.put("A", "v", "2")); err != nil {
		t.Fatalf("after the hold: %v", err)
	}
	st := r.in.Stats()
	if st.Refused != 1 || st.Conflicts["A"] != 1 || st.Conflicts["B"] != 1 {
		t.Errorf("stats %+v, want one refused request, conflicts on A and B", st)
	}
}

// TestSingleWriteMeetsTransaction: a PutItem, UpdateItem or DeleteItem of
// an item a transaction holds is refused with TransactionConflictException;
// single writes of one item never refuse each other.
func TestSingleWriteMeetsTransaction(t *testing.T) {
	r := newRig(t, 300*time.Millisecond)
	first := r.holding(t, r.put("A"))
	ctx := context.Background()
	var conflict *types.TransactionConflictException
	_, err := r.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: itemKey("A")})
	if !errors.As(err, &conflict) {
		t.Errorf("PutItem on a held item: %v (%T), want TransactionConflictException", err, err)
	}
	_, err = r.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.table), Key: itemKey("A"),
		UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
	if !errors.As(err, &conflict) {
		t.Errorf("UpdateItem on a held item: %v, want TransactionConflictException", err)
	}
	_, err = r.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r.table), Key: itemKey("A")})
	if !errors.As(err, &conflict) {
		t.Errorf("DeleteItem on a held item: %v, want TransactionConflictException", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}

	// 20 blind ADDs on one counter item at once: all applied.
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.table), Key: itemKey("counter"),
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent single-item ADD: %v", err)
		}
	}
	out, err := r.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: itemKey("counter"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := out.Item["n"].(*types.AttributeValueMemberN).Value; n != "20" {
		t.Errorf("counter %s after 20 ADDs, want 20", n)
	}
	if got := r.in.Writes("", "counter"); got != 20 {
		t.Errorf("counted %d writes of the counter item, want 20", got)
	}
}

// TestTransactionAnswersAfterHold: a caller gets a transaction's answer no
// sooner than the hold, as a DynamoDB transaction takes that long, so an
// instance's next write never meets its own last one.
func TestTransactionAnswersAfterHold(t *testing.T) {
	const hold = 80 * time.Millisecond
	r := newRig(t, hold)
	for i := range 3 {
		start := time.Now()
		if err := r.transact(r.put("A", "v", string(rune('a'+i))), r.check("B")); err != nil {
			t.Fatalf("write %d after the last one's answer: %v", i, err)
		}
		if d := time.Since(start); d < hold {
			t.Fatalf("answered in %v, before the hold of %v", d, hold)
		}
	}
	if r.in.Held() != 0 {
		t.Errorf("%d items still held after every answer", r.in.Held())
	}
}

// TestWritesPerPartitionKey: writes are counted per partition key of the
// table and of each index the CreateTable named (a Put carrying the
// index's key, an Update setting it), and the busiest key shows.
func TestWritesPerPartitionKey(t *testing.T) {
	r := newRig(t, time.Millisecond)
	ctx := context.Background()
	for i := range 5 {
		pk := "T#inbox-" + string(rune('1'+i))
		if err := r.transact(r.put(pk, "tk_ws", "inbox", "tk_ws_status", "inbox#candidate")); err != nil {
			t.Fatal(err)
		}
	}
	_, err := r.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.table), Key: itemKey("T#inbox-1"),
		UpdateExpression:          aws.String("SET #s = :s, v = :v"),
		ExpressionAttributeNames:  map[string]string{"#s": "tk_ws_status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("inbox#done"), ":v": s("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.in.Writes("tickets", "inbox"); got != 5 {
		t.Errorf("tickets index, partition inbox: %d writes, want 5", got)
	}
	if got := r.in.Writes("tickets_by_status", "inbox#candidate"); got != 5 {
		t.Errorf("tickets_by_status inbox#candidate: %d, want 5", got)
	}
	if got := r.in.Writes("tickets_by_status", "inbox#done"); got != 1 {
		t.Errorf("tickets_by_status inbox#done: %d, want 1 (the update that set it)", got)
	}
	if got := r.in.Writes("", "T#inbox-1"); got != 2 {
		t.Errorf("table partition T#inbox-1: %d, want 2", got)
	}
	b := r.in.Stats().Busiest
	if b.PerSecond < 3 || (b.Index != "tickets" && b.Index != "tickets_by_status") {
		t.Errorf("busiest %+v, want an index partition of the workspace", b)
	}
}

// TestSerializeSendsOneWriteAtATime: with Serialize, the endpoint never
// has two writes in flight, yet transactions still overlap in the model
// (the hold is taken before the turn), so they still conflict.
func TestSerializeSendsOneWriteAtATime(t *testing.T) {
	in := &dynamotest.Injector{Hold: 300 * time.Millisecond, Serialize: true}
	var mu sync.Mutex
	inFlight, most := 0, 0
	url := testbackends.StartMinidyn(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			h.ServeHTTP(w, req)
			mu.Lock()
			inFlight--
			mu.Unlock()
		})
	}).URL
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), HTTPClient: in.HTTPClient(), RetryMaxAttempts: 1})
	r := &rig{in: in, client: client, table: testbackends.TableName()}
	if _, err := client.CreateTable(context.Background(), dynamo.CreateTableInput(r.table)); err != nil {
		t.Fatal(err)
	}
	first := r.holding(t, r.put("A"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = r.transact(r.put("other-" + string(rune('a'+i))))
		}()
	}
	var tce *types.TransactionCanceledException
	if err := r.transact(r.put("A")); !errors.As(err, &tce) {
		t.Errorf("a transaction overlapping one in its hold: %v, want a conflict", err)
	}
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if most != 1 {
		t.Errorf("the endpoint had %d requests in flight at once, want 1", most)
	}
}
