//go:build lambdaemulator

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook/webhooktest"
	"github.com/ticket-ledger/ticket-ledger/internal/webhooklambda"
)

// The sender's Linux build runs under the Lambda runtime interface
// emulator on moto, invoked with the event Lambda's SQS poller sends (the
// FIFO queue's messages, as the fan-out queued them from the table's
// stream): it posts the delivery to a loopback receiver with a valid
// Standard Webhooks signature and reports nothing; when the receiver fails,
// it reports the message, and the message stays invisible for the retry
// step it set.
func TestSenderUnderLambdaEmulator(t *testing.T) {
	ctx, rie, moto := lambdatest.Prepare(t, 3*time.Minute)
	bootstrap := lambdatest.Bootstrap(t, ctx, lambdatest.Build)
	st := testbackends.NewStreamTable(t, ctx, moto.URL, dynamo.Config{SerializeWrites: true})
	table, store := st.Table, st.Store
	svc, err := board.NewService(board.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	hooks := webhook.New(webhook.Config{Store: store, Secrets: store, Workspaces: store, AllowPrivate: true})
	queue, err := lambdatest.NewFIFOQueue(ctx, moto.URL, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var got []error // each request's signature verdict
	status := http.StatusNoContent
	secret := ""
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		got = append(got, webhooktest.Verify(secret, r.Header, body, time.Now(), 5*time.Minute))
		w.WriteHeader(status)
	}))
	defer receiver.Close()
	admin := board.WithPrincipal(ctx, board.Principal{Author: "human:alice", Role: board.RoleAdmin, Source: board.SourceREST})
	c, err := hooks.Create(admin, webhook.CreateInput{RequestID: "sub-1", Workspace: "inbox", URL: receiver.URL + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	secret = c.Secret

	env := []string{"LEDGER_TABLE=" + table, "DYNAMODB_ENDPOINT=" + moto.URL, "LEDGER_DYNAMODB_SERIALIZE_WRITES=1",
		"LEDGER_WEBHOOK_QUEUE_URL=" + queue.URL, "SQS_ENDPOINT=" + moto.URL, "LEDGER_WEBHOOK_ALLOW_PRIVATE=1", "LEDGER_WEBHOOK_RETRY=30s"}
	fanout, err := webhooklambda.NewFanout(ctx, func(k string) string {
		for _, kv := range env {
			if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
				return kv[len(k)+1:]
			}
		}
		return ""
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	em, err := lambdatest.StartEmulator(ctx, rie, bootstrap, env)
	if err != nil {
		t.Fatal(err)
	}
	defer em.Stop()

	streamARN := st.StreamARN
	seen := 0
	// write makes a ticket and hands the new stream records to the fan-out.
	write := func(title string) {
		t.Helper()
		if _, err := svc.CreateTicket(admin, board.CreateTicketInput{RequestID: fmt.Sprintf("create-%d", seen), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
			t.Fatal(err)
		}
		recs, err := lambdatest.StreamRecords(ctx, moto.URL, streamARN)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := fanout.Handle(ctx, events.DynamoDBEvent{Records: recs[seen:]}); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("fan-out: %+v, %v", resp, err)
		}
		seen = len(recs)
	}
	// invoke hands the queue's next batch to the function under the emulator.
	invoke := func() (events.SQSEvent, events.SQSEventResponse) {
		t.Helper()
		ev, err := queue.Receive(ctx, 10)
		if err != nil || len(ev.Records) != 1 {
			t.Fatalf("received %d messages (%v), want 1", len(ev.Records), err)
		}
		body, _ := json.Marshal(ev)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, em.InvokeURL, bytes.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out events.SQSEventResponse
		if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d %s (%v)\n%s", resp.StatusCode, raw, err, em.Logs())
		}
		if err := queue.Settle(ctx, ev, out); err != nil {
			t.Fatal(err)
		}
		return ev, out
	}

	write("Fix the login page")
	if _, out := invoke(); len(out.BatchItemFailures) != 0 {
		t.Fatalf("a delivery the receiver took was reported: %+v\n%s", out, em.Logs())
	}
	mu.Lock()
	if len(got) != 1 || got[0] != nil {
		t.Errorf("the receiver got %v, want one delivery with a valid signature\n%s", got, em.Logs())
	}
	status = http.StatusInternalServerError
	mu.Unlock()

	write("Pick a database")
	ev, out := invoke()
	if len(out.BatchItemFailures) != 1 || out.BatchItemFailures[0].ItemIdentifier != ev.Records[0].MessageId {
		t.Fatalf("a failed delivery's answer: %+v\n%s", out, em.Logs())
	}
	if again, err := queue.Receive(ctx, 10); err != nil || len(again.Records) != 0 {
		t.Errorf("the failed message is visible again at once (%d, %v); its retry step is 30s", len(again.Records), err)
	}
	sub, err := store.GetSubscription(ctx, c.Subscription.ID)
	if err != nil || sub.Progress.Failures != 1 || sub.Progress.FailingSince.IsZero() {
		t.Errorf("the subscription's progress after the failure: %+v (%v)", sub.Progress, err)
	}
	log, err := store.ListAttempts(ctx, c.Subscription.ID, 10)
	if err != nil || len(log) != 2 || log[0].Status != http.StatusInternalServerError || !log[1].OK {
		t.Errorf("the delivery log: %+v (%v)", log, err)
	}
}
