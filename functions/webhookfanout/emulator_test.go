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
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqsqueue"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// The fan-out's Linux build runs under the Lambda runtime interface
// emulator on moto, invoked with the records moto's stream holds for a
// new ticket: it answers no batch item failures, and the queue holds one
// delivery of the ticket's event for the subscription.
func TestFanoutUnderLambdaEmulator(t *testing.T) {
	ctx, rie, moto := lambdatest.Prepare(t, 3*time.Minute)
	bootstrap := lambdatest.Bootstrap(t, ctx, lambdatest.Build)
	st := testbackends.NewStreamTable(t, ctx, moto.URL, dynamo.Config{SerializeWrites: true})
	table, store := st.Table, st.Store
	svc, err := board.NewService(board.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	hooks := webhook.New(webhook.Config{Store: store, Secrets: store, Workspaces: store, AllowPrivate: true})
	admin := board.WithPrincipal(ctx, board.Principal{Author: "human:alice", Role: board.RoleAdmin, Source: board.SourceREST})
	sub, err := hooks.Create(admin, webhook.CreateInput{RequestID: "sub-1", Workspace: "inbox", URL: "http://127.0.0.1:9/hook"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.CreateTicket(admin, board.CreateTicketInput{RequestID: "create-1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Fix the login page"}})
	if err != nil {
		t.Fatal(err)
	}
	queue, err := lambdatest.NewFIFOQueue(ctx, moto.URL, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	em, err := lambdatest.StartEmulator(ctx, rie, bootstrap, []string{
		"LEDGER_TABLE=" + table, "DYNAMODB_ENDPOINT=" + moto.URL, "LEDGER_DYNAMODB_SERIALIZE_WRITES=1",
		"LEDGER_WEBHOOK_QUEUE_URL=" + queue.URL, "SQS_ENDPOINT=" + moto.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Stop()

	recs, err := lambdatest.StreamRecords(ctx, moto.URL, st.StreamARN)
	if err != nil {
		t.Fatal(err)
	}
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
	ev, err := queue.Receive(ctx, 10)
	if err != nil || len(ev.Records) != 1 {
		t.Fatalf("the queue holds %d messages (%v), want 1\n%s", len(ev.Records), err, em.Logs())
	}
	d, err := sqsqueue.Decode(ev.Records[0].Body)
	if err != nil || d.Subscription != sub.Subscription.ID || d.Event.TicketID != res.Ticket.ID || d.Event.Type != board.EventTicketCreated {
		t.Errorf("queued %+v (%v), want the ticket's creation for %s", d, err, sub.Subscription.ID)
	}
}
