//go:build lambdaemulator

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/sfn"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// The worker's Linux build runs under the Lambda runtime interface emulator
// on moto, invoked with the payloads the state machine sends (the Payload
// of its lambda:invoke states): "run" loops until the task is done, a
// permanent error answers errorType ImportFailed, "fail" marks the task
// failed. The emulator answers function errors with HTTP 200 and no
// X-Amz-Function-Error header, so Retry and Catch are proven on moto's
// interpreter (internal/sfn), not here.
func TestWorkerUnderLambdaEmulator(t *testing.T) {
	ctx, rie, moto := lambdatest.Prepare(t, 3*time.Minute)
	bootstrap := lambdatest.Bootstrap(t, ctx, lambdatest.Build)
	testbackends.FakeAWSCredentials(t)
	table := fmt.Sprintf("worker-rie-%d", time.Now().UnixNano())
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: moto.URL, Table: table, CreateTable: true, SerializeWrites: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := board.NewService(board.Config{Store: store, Runner: parked{}, InlineImportRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	alice := board.WithPrincipal(ctx, board.Principal{Author: "ai:alice", Source: board.SourceMCP})
	start := func(id string, n int) string { return startImport(t, alice, svc, id, n) }

	em, err := lambdatest.StartEmulator(ctx, rie, bootstrap, []string{
		// One DynamoDB chunk (32 rows) an invocation: moto is slow, and the
		// emulator's deadline is 30 s.
		"LEDGER_TABLE=" + table, "DYNAMODB_ENDPOINT=" + moto.URL, "LEDGER_WORKER_MAX_ROWS=32", "LEDGER_DYNAMODB_SERIALIZE_WRITES=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Stop()
	invoke := func(payload any) (map[string]any, http.Header) {
		t.Helper()
		body, _ := json.Marshal(payload)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, em.InvokeURL, bytes.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("HTTP %d %s\n%s", resp.StatusCode, raw, em.Logs())
		}
		return out, resp.Header
	}

	task := start("rie-run", 250)
	cursor, calls := 0, 0
	for {
		out, _ := invoke(sfn.Event{Action: "run", TaskID: task, Cursor: cursor})
		if out["errorType"] != nil {
			t.Fatalf("run answered an error: %v\n%s", out, em.Logs())
		}
		calls++
		cursor = int(out["cursor"].(float64))
		if out["done"] == true {
			if out["status"] != "completed" || cursor != 250 {
				t.Fatalf("last run = %v, want completed at 250", out)
			}
			break
		}
		if calls > 12 {
			t.Fatalf("still not done after %d runs: %v", calls, out)
		}
	}
	if calls != 8 {
		t.Errorf("%d runs of at most 32 rows for 250 rows, want 8", calls)
	}
	v, err := svc.GetTask(alice, board.TaskIDInput{TaskID: task})
	if err != nil || v.Status != board.TaskCompleted || v.Imported != 250 {
		t.Fatalf("task = %+v, %v", v, err)
	}

	out, header := invoke(sfn.Event{Action: "run", TaskID: "00000000-0000-4000-8000-00000000dead"})
	if out["errorType"] != "ImportFailed" || !strings.Contains(fmt.Sprint(out["errorMessage"]), "not found") {
		t.Errorf("run of a missing task = %v, want errorType ImportFailed", out)
	}
	// The pinned emulator answers a function error with no
	// X-Amz-Function-Error header (Lambda itself says Unhandled): that gap is
	// why Retry and Catch are proven on moto's interpreter instead. Should a
	// new emulator send the header, this says so, and they can be proven
	// here too.
	if got := header.Get("X-Amz-Function-Error"); got != "" {
		t.Errorf("the emulator now answers a function error with X-Amz-Function-Error %q: prove Retry and Catch under it too, and update this test", got)
	}

	doomed := start("rie-fail", 50)
	failure := map[string]any{"action": "fail", "task_id": doomed, "failure": map[string]any{
		"Error": "ImportFailed", "Cause": `{"errorType":"ImportFailed","errorMessage":"workspace 'inbox' refuses the import"}`}}
	if out, _ := invoke(failure); out["status"] != "failed" || out["done"] != true {
		t.Fatalf("fail = %v", out)
	}
	v, _ = svc.GetTask(alice, board.TaskIDInput{TaskID: doomed})
	if v.Status != board.TaskFailed || !strings.Contains(v.StatusMessage, "refuses the import") {
		t.Fatalf("failed task = %+v", v)
	}
}
