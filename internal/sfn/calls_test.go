package sfn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

const testMachine = "arn:aws:states:us-east-1:123456789012:stateMachine:ticket-ledger-tasks"

var testCreds = credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "session")

// noWait makes the retryer's backoff zero, so retry tests take no time.
func noWait(o *retry.StandardOptions) {
	o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
}

// fakeService answers each request with the next of its answers (the last
// repeats) and records what it got.
type fakeService struct {
	mu       sync.Mutex
	answers  []answer
	requests []*http.Request
	bodies   []string
}

type answer struct {
	status  int
	header  map[string]string
	body    string
	dropped bool // close the connection without an answer
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.bodies = append(f.bodies, string(body))
	a := f.answers[min(len(f.requests), len(f.answers))-1]
	f.mu.Unlock()
	if a.dropped {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

func (f *fakeService) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func newFake(t *testing.T, answers ...answer) (*fakeService, *Client) {
	t.Helper()
	f := &fakeService{answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, newClient("us-east-1", srv.URL, testCreds, noWait)
}

func TestStartExecutionRequest(t *testing.T) {
	f, c := newFake(t, answer{status: 200, body: `{"executionArn":"arn:x","startDate":1.7E9}`})
	fixed := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	c.now = func() time.Time { return fixed }
	in := StartExecutionInput{StateMachineArn: testMachine, Name: "t1", Input: `{"task_id":"t1","cursor":0}`}
	if err := c.StartExecution(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	r := f.requests[0]
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		t.Errorf("request %s %s, want POST /", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("X-Amz-Target"); got != "AWSStepFunctions.StartExecution" {
		t.Errorf("X-Amz-Target %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/x-amz-json-1.0" {
		t.Errorf("Content-Type %q", got)
	}
	var sent map[string]string
	if err := json.Unmarshal([]byte(f.bodies[0]), &sent); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"stateMachineArn": testMachine, "name": "t1", "input": `{"task_id":"t1","cursor":0}`}
	if fmt.Sprint(sent) != fmt.Sprint(want) {
		t.Errorf("body %v, want %v", sent, want)
	}
	// The signature is the one SigV4 gives this very request (its body,
	// host, target and time) for the service "states" in the client's
	// region: signing it again on this side must give the same header.
	if got := r.Header.Get("X-Amz-Security-Token"); got != "session" {
		t.Errorf("X-Amz-Security-Token %q, want the session token", got)
	}
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260304/us-east-1/states/aws4_request,") {
		t.Errorf("Authorization %q: want a SigV4 signature for states in us-east-1", auth)
	}
	again, _ := http.NewRequest(http.MethodPost, "http://"+r.Host+"/", strings.NewReader(f.bodies[0]))
	for _, h := range []string{"Content-Type", "X-Amz-Target"} {
		again.Header.Set(h, r.Header.Get(h))
	}
	creds, _ := testCreds.Retrieve(context.Background())
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, sha256Hex(f.bodies[0]), "states", "us-east-1", fixed); err != nil {
		t.Fatal(err)
	}
	if again.Header.Get("Authorization") != auth {
		t.Errorf("Authorization %q, want %q (the request was changed after signing, or a header or the payload hash is wrong)", auth, again.Header.Get("Authorization"))
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestCallRetries(t *testing.T) {
	in := StopExecutionInput{ExecutionArn: "arn:aws:states:us-east-1:123456789012:execution:m:t1"}
	throttled := answer{status: 400, body: `{"__type":"com.amazonaws.swf.base.model#ThrottlingException","message":"Rate exceeded"}`}
	unavailable := answer{status: 503, body: `{"message":"try later"}`}
	ok := answer{status: 200, body: `{"stopDate":1.7E9}`}
	cases := []struct {
		name     string
		answers  []answer
		requests int
		code     string // "" = success
		status   int
	}{
		{"a 5xx is retried until it succeeds", []answer{unavailable, unavailable, ok}, 3, "", 0},
		{"throttling is retried", []answer{throttled, ok}, 2, "", 0},
		{"a dropped connection is retried", []answer{{dropped: true}, ok}, 2, "", 0},
		{"a 5xx that persists fails after the retryer's three attempts", []answer{unavailable}, 3, "UnknownError", 503},
		{"a refusal is not retried", []answer{{status: 400, body: `{"__type":"InvalidArn","message":"Invalid Arn: 'x'"}`}, ok}, 1, "InvalidArn", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, tc.answers...)
			err := c.StopExecution(context.Background(), in)
			if n := f.count(); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if tc.code == "" {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				return
			}
			if got := errorCode(err); got != tc.code {
				t.Errorf("error code %q, want %q (err %v)", got, tc.code, err)
			}
			var status interface{ HTTPStatusCode() int }
			if !errors.As(err, &status) || status.HTTPStatusCode() != tc.status {
				t.Errorf("err %v carries no HTTP status %d", err, tc.status)
			}
		})
	}
}

// failingDoer never gets an answer.
type failingDoer struct{ calls int }

func (d *failingDoer) Do(*http.Request) (*http.Response, error) {
	d.calls++
	return nil, errors.New("dial tcp 10.0.0.1:443: connect: connection refused")
}

func TestCallUnreachableIsAConnectionErrorAfterEveryAttempt(t *testing.T) {
	c := newClient("us-east-1", "", testCreds, noWait)
	d := &failingDoer{}
	c.http = d
	err := c.StartExecution(context.Background(), StartExecutionInput{StateMachineArn: testMachine})
	var send *smithyhttp.RequestSendError
	if !errors.As(err, &send) {
		t.Fatalf("err = %v, want a request send error", err)
	}
	if d.calls != retry.DefaultMaxAttempts {
		t.Errorf("%d attempts, want %d", d.calls, retry.DefaultMaxAttempts)
	}
}

func TestCallStopsRetryingWhenTheContextEnds(t *testing.T) {
	f := &fakeService{answers: []answer{{status: 503}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The context ends while the client waits (an hour) before its retry.
	c := newClient("us-east-1", srv.URL, testCreds, func(o *retry.StandardOptions) {
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { cancel(); return time.Hour, nil })
	})
	err := c.StopExecution(ctx, StopExecutionInput{ExecutionArn: "arn"})
	if !errors.Is(err, context.Canceled) || errorCode(err) != "UnknownError" || f.count() != 1 {
		t.Fatalf("err = %v after %d requests, want the first answer's error and the cancellation", err, f.count())
	}
}

func TestAPIErrorNames(t *testing.T) {
	cases := []struct {
		header, body, code, message string
	}{
		{"", `{"__type":"com.amazonaws.states#ExecutionDoesNotExist","message":"Execution Does Not Exist: 'arn'"}`, "ExecutionDoesNotExist", "Execution Does Not Exist: 'arn'"},
		{"ExecutionAlreadyExists:http://internal.amazon.com/coral/com.amazonaws.swf.service.v2.model/", `{"Message":"Execution Already Exists"}`, "ExecutionAlreadyExists", "Execution Already Exists"},
		{"", `{"code":"AccessDeniedException","message":"not allowed"}`, "AccessDeniedException", "not allowed"},
		{"", `<html>bad gateway</html>`, "UnknownError", "Bad Gateway"},
	}
	for _, tc := range cases {
		resp := &http.Response{StatusCode: 502, Header: http.Header{}}
		if strings.Contains(tc.body, "message") || strings.Contains(tc.body, "Message") {
			resp.StatusCode = 400
		}
		if tc.header != "" {
			resp.Header.Set("X-Amzn-ErrorType", tc.header)
		}
		err := apiError(resp, []byte(tc.body))
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != tc.code || apiErr.ErrorMessage() != tc.message {
			t.Errorf("header %q body %s: got %v, want code %q message %q", tc.header, tc.body, err, tc.code, tc.message)
		}
	}
}

func TestRegionalEndpoint(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1":     "https://states.us-east-1.amazonaws.com",
		"eu-central-1":  "https://states.eu-central-1.amazonaws.com",
		"us-gov-west-1": "https://states.us-gov-west-1.amazonaws.com",
		"cn-north-1":    "https://states.cn-north-1.amazonaws.com.cn",
	} {
		if got := newClient(region, "", testCreds).endpoint; got != want {
			t.Errorf("%s: endpoint %s, want %s", region, got, want)
		}
	}
}

func TestRunnerMapsTheServiceAnswers(t *testing.T) {
	task := board.Task{ID: "0190c6d2-aaaa-7bbb-8ccc-123456789abc"}
	t.Run("a start whose execution exists is done", func(t *testing.T) {
		f, c := newFake(t, answer{status: 400, body: `{"__type":"ExecutionAlreadyExists","message":"Execution Already Exists: 'arn'"}`})
		r, _ := NewRunner(c, testMachine)
		if err := r.Start(context.Background(), task); err != nil {
			t.Fatalf("Start = %v, want nil", err)
		}
		var sent StartExecutionInput
		json.Unmarshal([]byte(f.bodies[0]), &sent)
		if sent.Name != task.ID || sent.Input != `{"task_id":"`+task.ID+`","cursor":0}` || sent.StateMachineArn != testMachine {
			t.Errorf("StartExecution %+v: want the task id as name and input", sent)
		}
	})
	t.Run("stopping an execution that does not exist is done", func(t *testing.T) {
		f, c := newFake(t, answer{status: 400, body: `{"__type":"ExecutionDoesNotExist","message":"Execution Does Not Exist"}`})
		r, _ := NewRunner(c, testMachine)
		if err := r.Stop(context.Background(), task); err != nil {
			t.Fatalf("Stop = %v, want nil", err)
		}
		var sent StopExecutionInput
		json.Unmarshal([]byte(f.bodies[0]), &sent)
		if sent.ExecutionArn != r.Reference(task) || sent.Error != "TaskCancelled" {
			t.Errorf("StopExecution %+v: want the task's execution and the TaskCancelled error", sent)
		}
	})
	t.Run("another refusal names the task and the service's error", func(t *testing.T) {
		_, c := newFake(t, answer{status: 400, body: `{"__type":"StateMachineDoesNotExist","message":"State Machine Does Not Exist: 'arn'"}`})
		r, _ := NewRunner(c, testMachine)
		err := r.Start(context.Background(), task)
		if err == nil || !strings.Contains(err.Error(), task.ID) || !strings.Contains(err.Error(), "StateMachineDoesNotExist") {
			t.Fatalf("Start = %v, want the task id and StateMachineDoesNotExist", err)
		}
	})
}
