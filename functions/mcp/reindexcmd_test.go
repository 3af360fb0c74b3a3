package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// reindex-words writes the word items of tickets that have none (a table
// whose tickets were written before word search), so they are found; on
// SQLite it says the migration does it.
func TestReindexWordsCommand(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	ctx := context.Background()
	mini := testbackends.StartMinidyn(t, nil)
	table := testbackends.TableName()
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: mini.URL, Table: table, CreateTable: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var tickets []board.Ticket
	for n := int64(1); n <= 150; n++ {
		tickets = append(tickets, board.Ticket{ID: "inbox-" + itoaTest(n), Workspace: "inbox", Number: n, Title: "Printer jam " + itoaTest(n),
			Status: board.StatusCandidate, Priority: board.PriorityNormal, Tags: []string{}, Links: []board.Link{}, CreatedBy: "ai:x", CreatedAt: now, UpdatedAt: now, Version: 1})
	}
	if err := store.LoadBulk(ctx, dynamo.Bulk{Tickets: tickets}); err != nil {
		t.Fatal(err)
	}
	// As a table from before word search: no item of "printer".
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "S#inbox#pr"}}})
	if err != nil || len(out.Items) != 150 {
		t.Fatalf("printer's items: %d, %v", len(out.Items), err)
	}
	for _, item := range out.Items {
		if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func() int {
		page, err := store.ListTickets(ctx, board.TicketQuery{Workspace: "inbox", Query: "printer ", Limit: board.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Tickets)
	}
	if n := found(); n != 0 {
		t.Fatalf("printer finds %d tickets without its items", n)
	}

	env := map[string]string{envStore: storeDynamoDB, envTable: table, envEndpoint: mini.URL}
	var stdout, stderr bytes.Buffer
	cmd := command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stdout.String(), "inbox\t150 tickets\n") {
		t.Fatalf("reindex-words: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := found(); n != board.MaxLimit {
		t.Errorf("after reindex-words printer finds %d tickets on its first page, want %d", n, board.MaxLimit)
	}

	stdout.Reset()
	stderr.Reset()
	cmd = command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(map[string]string{envStore: storeSQLite, envData: t.TempDir()})}
	if code := cmd.run(ctx); code != exitFailed || !strings.Contains(stderr.String(), "schema migration fills") {
		t.Errorf("reindex-words on SQLite: exit %d, stderr %q", code, stderr.String())
	}
}

func itoaTest(n int64) string { return strconv.FormatInt(n, 10) }
