//go:build lambdaemulator

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// The indexer's Linux build runs under the Lambda runtime interface
// emulator on moto, invoked with the event Lambda's stream poller sends
// (moto's stream records for a create and an edit): it answers no batch
// item failures and the body words are found.
func TestIndexerUnderLambdaEmulator(t *testing.T) {
	ctx, rie, moto := lambdatest.Prepare(t, 3*time.Minute)
	bootstrap := lambdatest.Bootstrap(t, ctx, lambdatest.Build)
	b := newStreamBoard(t, ctx, moto.URL)
	em, err := lambdatest.StartEmulator(ctx, rie, bootstrap, []string{
		"LEDGER_TABLE=" + b.table, "DYNAMODB_ENDPOINT=" + moto.URL, "LEDGER_DYNAMODB_SERIALIZE_WRITES=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Stop()
	invoke := func(recs []events.DynamoDBEventRecord) {
		t.Helper()
		body, _ := json.Marshal(events.DynamoDBEvent{Records: recs})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, em.InvokeURL, bytes.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out events.DynamoDBEventResponse
		if err := json.Unmarshal(raw, &out); err != nil || len(out.BatchItemFailures) != 0 || !strings.Contains(string(raw), "batchItemFailures") {
			t.Fatalf("HTTP %d %s (%v)\n%s", resp.StatusCode, raw, err, em.Logs())
		}
	}
	id := writeTickets(t, ctx, b, func() { invoke(b.records(t, ctx)) })
	invoke(b.records(t, ctx))
	checkIndexed(t, ctx, b, id, "under the emulator")
}
