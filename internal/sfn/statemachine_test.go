package sfn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sfn"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// The state machine of infra/statemachine.asl.json runs on moto's Step
// Functions interpreter, against moto's DynamoDB, with the real worker
// handler answering the interpreter's lambda:invoke in this process (the
// interpreter sends them to localhost:$MOTO_PORT, which is this test's
// Invoke API). Errors are answered as Lambda does: X-Amz-Function-Error and
// {errorType, errorMessage}.

const workerARN = "arn:aws:lambda:us-east-1:123456789012:function:ticket-ledger-worker"

// invokeAPI answers Lambda's Invoke API with the worker. before, when set,
// runs first and may answer an error instead; after may turn a successful
// run into an error (an answer lost after the work was done).
type invokeAPI struct {
	worker *sfn.Worker
	mu     sync.Mutex
	before func(ev sfn.Event) error
	after  func(ev sfn.Event) error
	calls  atomic.Int64
	logf   func(format string, args ...any)
}

func (a *invokeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/2015-03-31/functions/") || !strings.HasSuffix(r.URL.Path, "/invocations") {
		http.Error(w, "not the Invoke API", http.StatusNotFound)
		return
	}
	a.calls.Add(1)
	var ev sfn.Event
	if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	before, after := a.before, a.after
	a.mu.Unlock()
	var out sfn.Output
	var err error
	if before != nil {
		err = before(ev)
	}
	if err == nil {
		start := time.Now()
		out, err = a.worker.Handle(r.Context(), ev)
		if a.logf != nil {
			a.logf("worker %s %s from row %d: %v, cursor %d, err %v", ev.Action, ev.TaskID[:8], ev.Cursor, time.Since(start).Round(time.Millisecond), out.Cursor, err)
		}
		if err == nil && after != nil {
			err = after(ev)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		typ := "Error"
		var tr *sfn.Transient
		var pf *sfn.ImportFailed
		switch {
		case errors.As(err, &tr):
			typ = "Transient"
		case errors.As(err, &pf):
			typ = "ImportFailed"
		}
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		json.NewEncoder(w).Encode(map[string]string{"errorType": typ, "errorMessage": err.Error()})
		return
	}
	json.NewEncoder(w).Encode(out)
}

func (a *invokeAPI) set(before, after func(sfn.Event) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.before, a.after = before, after
}

type sfnEnv struct {
	svc    *board.Service
	store  storetest.Store
	client *awssfn.Client
	api    *invokeAPI
	runner *sfn.Runner
	db     *dynamodb.Client
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startMoto runs scripts/moto-stepfunctions.py with MOTO_PORT=invokePort.
func startMoto(t *testing.T, invokePort int) string {
	t.Helper()
	if _, err := exec.LookPath("moto_server"); err != nil {
		testrequire.Missing(t, "pip install 'moto[server]'", "moto_server is not installed; the state machine test needs it")
	}
	_, file, _, _ := runtime.Caller(0)
	launcher := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "moto-stepfunctions.py")
	for attempt := 0; attempt < 3; attempt++ {
		port := freePort(t)
		cmd := exec.Command("python3", launcher, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
		cmd.Env = append(os.Environ(), fmt.Sprintf("MOTO_PORT=%d", invokePort))
		var logs strings.Builder
		cmd.Stdout, cmd.Stderr = &logs, &logs
		dieWithTest(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-exited
		})
		url := fmt.Sprintf("http://127.0.0.1:%d", port)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			select {
			case <-exited:
				t.Logf("moto exited: %s", logs.String())
				deadline = time.Time{}
			default:
			}
			if resp, err := http.Get(url + "/moto-api/"); err == nil {
				resp.Body.Close()
				return url
			}
		}
		cmd.Process.Kill()
	}
	t.Fatal("moto did not start")
	return ""
}

func newSFNEnv(t *testing.T, maxRows int) *sfnEnv {
	t.Helper()
	api := &invokeAPI{}
	if testing.Verbose() {
		api.logf = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: api}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	endpoint := startMoto(t, ln.Addr().(*net.TCPAddr).Port)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	ctx := context.Background()
	db, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	store, err := dynamo.Open(ctx, dynamo.Config{Client: db, Table: "tasks", CreateTable: true, SerializeWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := board.NewService(board.Config{Store: store, InlineImportRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	api.worker = &sfn.Worker{Svc: svc, MaxRows: maxRows}
	// The generated client sets the state machine up and watches its
	// executions; the runner starts and stops them with the package's own.
	client := awssfn.New(awssfn.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	calls, err := sfn.NewClient(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	def, err := os.ReadFile("../../infra/statemachine.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	created, err := client.CreateStateMachine(ctx, &awssfn.CreateStateMachineInput{
		Name:       aws.String("ticket-ledger-tasks"),
		Definition: aws.String(strings.ReplaceAll(string(def), "${WorkerFunctionArn}", workerARN)),
		RoleArn:    aws.String("arn:aws:iam::123456789012:role/ticket-ledger-tasks"),
		Type:       types.StateMachineTypeStandard,
	})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := sfn.NewRunner(calls, aws.ToString(created.StateMachineArn))
	if err != nil {
		t.Fatal(err)
	}
	svc.SetRunner(runner)
	return &sfnEnv{svc: svc, store: store, client: client, api: api, runner: runner, db: db}
}

var alice = board.WithPrincipal(context.Background(), board.Principal{Author: "ai:alice", Source: board.SourceMCP})

func (e *sfnEnv) importRows(t *testing.T, requestID string, n int) board.ImportResult {
	t.Helper()
	in := board.ImportTicketsInput{RequestID: requestID, Workspace: "inbox"}
	for i := range n {
		in.Tickets = append(in.Tickets, board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprintf("%s row %05d", requestID, i)}})
	}
	res, err := e.svc.ImportTickets(alice, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != board.TaskWorking {
		t.Fatalf("import of %d rows answered %s, want working (the state machine runs it)", n, res.Status)
	}
	return res
}

// waitExecution polls the execution until it leaves RUNNING.
func (e *sfnEnv) waitExecution(t *testing.T, taskID string, limit time.Duration) types.ExecutionStatus {
	t.Helper()
	arn := e.runner.Reference(board.Task{ID: taskID})
	deadline := time.Now().Add(limit)
	for {
		out, err := e.client.DescribeExecution(context.Background(), &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != types.ExecutionStatusRunning {
			return out.Status
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s still running after %v", arn, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *sfnEnv) task(t *testing.T, id string) board.TaskView {
	t.Helper()
	v, err := e.svc.GetTask(alice, board.TaskIDInput{TaskID: id})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// rowsImportedOnce is the witness: the table read directly, outside the
// store's code (moto's Scan is too slow for tens of thousands of items).
// Each of the request's rows that was imported has one record naming a
// ticket no other row names, and the workspace's index lists each of the
// request's tickets once: want of them.
func (e *sfnEnv) rowsImportedOnce(t *testing.T, requestID string, rows, want int) {
	t.Helper()
	ctx := context.Background()
	tickets := map[string]int{}
	records := 0
	var keys []map[string]dbtypes.AttributeValue
	for i := range rows {
		keys = append(keys, map[string]dbtypes.AttributeValue{
			"pk": &dbtypes.AttributeValueMemberS{Value: fmt.Sprintf("R#ai:alice#%s#%d", requestID, i)},
			"sk": &dbtypes.AttributeValueMemberS{Value: "R"},
		})
	}
	for batch := range slices.Chunk(keys, 100) {
		for pending := batch; len(pending) > 0; {
			out, err := e.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]dbtypes.KeysAndAttributes{
				"tasks": {Keys: pending, ConsistentRead: aws.Bool(true)}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range out.Responses["tasks"] {
				var r board.ImportedRow
				if err := json.Unmarshal([]byte(attr(item, "result")), &r); err != nil {
					t.Fatalf("record %s: %v", attr(item, "pk"), err)
				}
				tickets[r.TicketID]++
				records++
			}
			pending = out.UnprocessedKeys["tasks"].Keys
		}
	}
	// The workspace's tickets as its listing index holds them, each read
	// from its document (small tickets keep it as plain JSON in "doc").
	titles := map[string]int{}
	p := dynamodb.NewQueryPaginator(e.db, &dynamodb.QueryInput{
		TableName:                 aws.String("tasks"),
		IndexName:                 aws.String("tickets"),
		KeyConditionExpression:    aws.String("tk_ws = :ws"),
		ExpressionAttributeValues: map[string]dbtypes.AttributeValue{":ws": &dbtypes.AttributeValueMemberS{Value: "inbox"}},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			var tk board.Ticket
			if err := json.Unmarshal([]byte(attr(item, "doc")), &tk); err != nil {
				t.Fatalf("ticket item %s: %v", attr(item, "pk"), err)
			}
			if strings.HasPrefix(strings.ToLower(tk.Title), requestID+" row ") {
				titles[tk.Title]++
			}
		}
	}
	if records != want || len(tickets) != want || len(titles) != want {
		t.Errorf("%s: %d row records naming %d distinct tickets, %d distinct titles listed; want %d each", requestID, records, len(tickets), len(titles), want)
	}
	for title, n := range titles {
		if n != 1 {
			t.Errorf("%q imported %d times", title, n)
		}
	}
}

func attr(item map[string]dbtypes.AttributeValue, name string) string {
	if v, ok := item[name].(*dbtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func TestStateMachineOnMoto(t *testing.T) {
	e := newSFNEnv(t, 1000)

	t.Run("10000 rows become 10000 tickets", func(t *testing.T) {
		res := e.importRows(t, "big", 10000)
		start := time.Now()
		if st := e.waitExecution(t, res.TaskID, 5*time.Minute); st != types.ExecutionStatusSucceeded {
			t.Fatalf("execution %s", st)
		}
		v := e.task(t, res.TaskID)
		if v.Status != board.TaskCompleted || v.Imported != 10000 {
			t.Fatalf("task = %s, %d imported (%s)", v.Status, v.Imported, v.StatusMessage)
		}
		t.Logf("10000 rows in %v, %d worker invocations", time.Since(start).Round(time.Millisecond), e.api.calls.Load())
		w, _ := e.store.GetWorkspace(context.Background(), "inbox")
		if w.Counts[board.StatusCandidate] != 10000 {
			t.Errorf("inbox counts %d candidates, want 10000", w.Counts[board.StatusCandidate])
		}
		e.rowsImportedOnce(t, "big", 10000, 10000)
		found, err := e.svc.FindRequest(alice, board.FindRequestInput{RequestID: "big"})
		if err != nil || found.Status != ledger.LookupDone || found.Task == nil || found.Task.Status != board.TaskCompleted {
			t.Errorf("find_request = %+v, %v", found, err)
		}
	})

	t.Run("starting a task again and stopping an execution that never ran are no errors", func(t *testing.T) {
		// The service's own answers to both, as its JSON protocol sends
		// them, reach the runner through the package's client.
		ctx := context.Background()
		res := e.importRows(t, "again", 300)
		if err := e.runner.Start(ctx, board.Task{ID: res.TaskID}); err != nil {
			t.Errorf("second start of task %s: %v", res.TaskID, err)
		}
		if st := e.waitExecution(t, res.TaskID, time.Minute); st != types.ExecutionStatusSucceeded {
			t.Fatalf("execution %s", st)
		}
		if err := e.runner.Stop(ctx, board.Task{ID: "0190c6d2-0000-7000-8000-000000000000"}); err != nil {
			t.Errorf("stopping an execution that does not exist: %v", err)
		}
		e.rowsImportedOnce(t, "again", 300, 300)
	})

	t.Run("a transient error is retried", func(t *testing.T) {
		var failures atomic.Int64
		e.api.set(func(ev sfn.Event) error {
			if ev.Action == "run" && failures.Add(1) <= 2 {
				return &sfn.Transient{Message: "injected: throttled"}
			}
			return nil
		}, nil)
		defer e.api.set(nil, nil)
		res := e.importRows(t, "flaky", 300)
		if st := e.waitExecution(t, res.TaskID, time.Minute); st != types.ExecutionStatusSucceeded {
			t.Fatalf("execution %s", st)
		}
		if v := e.task(t, res.TaskID); v.Status != board.TaskCompleted || v.Imported != 300 || failures.Load() < 3 {
			t.Fatalf("task = %s %d imported after %d invocations", v.Status, v.Imported, failures.Load())
		}
		e.rowsImportedOnce(t, "flaky", 300, 300)
	})

	t.Run("a permanent error fails the task", func(t *testing.T) {
		e.api.set(func(ev sfn.Event) error {
			if ev.Action == "run" {
				return &sfn.ImportFailed{Message: "injected: workspace 'inbox' refuses the import"}
			}
			return nil
		}, nil)
		defer e.api.set(nil, nil)
		res := e.importRows(t, "doomed", 300)
		if st := e.waitExecution(t, res.TaskID, time.Minute); st != types.ExecutionStatusFailed {
			t.Fatalf("execution %s, want FAILED (the Catch's Fail state)", st)
		}
		v := e.task(t, res.TaskID)
		if v.Status != board.TaskFailed || v.Error == nil || !strings.Contains(v.StatusMessage, "refuses the import") {
			t.Fatalf("task = %+v", v)
		}
		e.rowsImportedOnce(t, "doomed", 300, 0)
	})

	t.Run("StopExecution leaves the task cancelled", func(t *testing.T) {
		gate := make(chan struct{})
		var entered sync.Once
		inside := make(chan struct{})
		e.api.set(func(ev sfn.Event) error {
			if ev.Action == "run" && ev.Cursor > 0 {
				entered.Do(func() { close(inside) })
				<-gate // the second invocation waits: the cancel lands now
			}
			return nil
		}, nil)
		defer e.api.set(nil, nil)
		release := sync.OnceFunc(func() { close(gate) })
		defer release()
		res := e.importRows(t, "stopped", 6000)
		<-inside
		v, err := e.svc.CancelTask(alice, board.TaskIDInput{TaskID: res.TaskID})
		if err != nil || v.Status != board.TaskCancelled {
			t.Fatalf("cancel = %+v, %v", v, err)
		}
		// moto stops an execution between states: the invocation in flight
		// goes on, finds the task cancelled, and commits nothing.
		release()
		if st := e.waitExecution(t, res.TaskID, time.Minute); st != types.ExecutionStatusAborted {
			t.Errorf("execution %s, want ABORTED (StopExecution)", st)
		}
		end := e.task(t, res.TaskID)
		if end.Status != board.TaskCancelled || end.Imported != 1000 || !strings.Contains(end.StatusMessage, "the 1000 tickets imported before the cancellation stay") {
			t.Fatalf("task = %s, %d imported: %s", end.Status, end.Imported, end.StatusMessage)
		}
		e.rowsImportedOnce(t, "stopped", 6000, 1000)
	})

	t.Run("a revoked token stops the import at its next chunk", func(t *testing.T) {
		ctx := context.Background()
		op := board.WithPrincipal(ctx, auth.Operator)
		accounts := auth.NewAccounts(auth.Config{Store: e.store})
		pw := "a long enough password"
		if _, err := accounts.AddPerson(op, auth.AddPersonInput{Handle: "carol", Password: &pw}); err != nil {
			t.Fatal(err)
		}
		made, err := accounts.CreateToken(op, auth.CreateTokenInput{Handle: "carol", Agent: "claude"})
		if err != nil {
			t.Fatal(err)
		}
		carol, err := e.store.GetPerson(ctx, "carol")
		if err != nil {
			t.Fatal(err)
		}
		agent := board.WithPrincipal(ctx, made.Token.Principal(carol))
		gate := make(chan struct{})
		inside := make(chan struct{})
		var entered sync.Once
		e.api.set(func(ev sfn.Event) error {
			if ev.Action == "run" && ev.Cursor > 0 {
				entered.Do(func() { close(inside) })
				<-gate // the second invocation waits: the revocation lands now
			}
			return nil
		}, nil)
		defer e.api.set(nil, nil)
		release := sync.OnceFunc(func() { close(gate) })
		defer release()
		in := board.ImportTicketsInput{RequestID: "revoked", Workspace: "inbox"}
		for i := range 3000 {
			in.Tickets = append(in.Tickets, board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprintf("revoked row %05d", i)}})
		}
		res, err := e.svc.ImportTickets(agent, in)
		if err != nil || res.Status != board.TaskWorking {
			t.Fatalf("import = %+v, %v", res, err)
		}
		<-inside
		if _, err := accounts.RevokeToken(op, made.Token.ID); err != nil {
			t.Fatal(err)
		}
		release()
		if st := e.waitExecution(t, res.TaskID, 2*time.Minute); st == types.ExecutionStatusFailed {
			t.Errorf("execution %s: a revocation is a cancellation, not a failure", st)
		}
		end, err := e.store.GetTask(ctx, res.TaskID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if end.Status != board.TaskCancelled || end.Imported != 1000 || !strings.Contains(end.Message, "revoked") {
			t.Fatalf("task = %s, %d imported: %s; want cancelled after the first invocation's 1000 rows", end.Status, end.Imported, end.Message)
		}
	})

	t.Run("a chunk whose answer was lost is re-run and replays", func(t *testing.T) {
		var lost atomic.Int64
		e.api.set(nil, func(ev sfn.Event) error {
			if ev.Action == "run" && lost.Add(1) == 1 {
				return &sfn.Transient{Message: "injected: the answer was lost after the chunks committed"}
			}
			return nil
		})
		defer e.api.set(nil, nil)
		res := e.importRows(t, "lost", 3000)
		if st := e.waitExecution(t, res.TaskID, 2*time.Minute); st != types.ExecutionStatusSucceeded {
			t.Fatalf("execution %s", st)
		}
		v := e.task(t, res.TaskID)
		if v.Status != board.TaskCompleted || v.Imported != 3000 || v.Progress.Done != 3000 {
			t.Fatalf("task = %s, %d imported of %d done", v.Status, v.Imported, v.Progress.Done)
		}
		e.rowsImportedOnce(t, "lost", 3000, 3000)
	})
}
