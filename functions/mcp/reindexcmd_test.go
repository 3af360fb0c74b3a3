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
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stdout.String(), "inbox\t150 tickets\n") ||
		!strings.Contains(stderr.String(), "reindexed the words of 150 tickets") {
		t.Fatalf("reindex-words: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := found(); n != board.MaxLimit {
		t.Errorf("after reindex-words printer finds %d tickets on its first page, want %d", n, board.MaxLimit)
	}

	// --from resumes at a ticket: it and the older ones are reindexed.
	out, err = client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "S#inbox#pr"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range out.Items {
		if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Reset()
	stderr.Reset()
	cmd = command{args: []string{"reindex-words", "--from", "inbox-40"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stdout.String(), "inbox\t40 tickets\n") {
		t.Fatalf("reindex-words --from inbox-40: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := found(); n != 40 {
		t.Errorf("after reindex-words --from inbox-40 printer finds %d tickets, want 40", n)
	}
	cmd = command{args: []string{"reindex-words", "--from", "inbox"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitUsage {
		t.Errorf("reindex-words --from inbox: exit %d, want usage", code)
	}

	stdout.Reset()
	stderr.Reset()
	cmd = command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(map[string]string{envStore: storeSQLite, envData: t.TempDir()})}
	if code := cmd.run(ctx); code != exitFailed || !strings.Contains(stderr.String(), "schema migration fills") {
		t.Errorf("reindex-words on SQLite: exit %d, stderr %q", code, stderr.String())
	}
}

func itoaTest(n int64) string { return strconv.FormatInt(n, 10) }

// reindex-words replaces the items the earlier index made of Japanese text
// (a run as one word, found only by its beginning) by the run's pairs.
func TestReindexWordsJapanese(t *testing.T) {
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
	tk := board.Ticket{ID: "inbox-1", Workspace: "inbox", Number: 1, Title: "LED点滅の記事案", Body: "ブログ記事の下書き",
		Status: board.StatusCandidate, Priority: board.PriorityNormal, Tags: []string{}, Links: []board.Link{}, CreatedBy: "ai:x", CreatedAt: now, UpdatedAt: now, Version: 1}
	if err := store.LoadBulk(ctx, dynamo.Bulk{Tickets: []board.Ticket{tk}}); err != nil {
		t.Fatal(err)
	}
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	// As the earlier index wrote it: no pair, each run one word.
	partition := func(pk string) []map[string]types.AttributeValue {
		out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Items
	}
	for _, w := range board.Words(tk.Title + " " + tk.Body) {
		for _, item := range partition("S#inbox#" + w) {
			if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const inverted1 = "9999999999999999998"
	earlier := map[string]string{"S#inbox#le": "led点滅の記事案#0" + inverted1, "S#inbox#ブロ": "ブログ記事の下書き#1" + inverted1}
	for pk, sk := range earlier {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func(q string) int {
		page, err := store.ListTickets(ctx, board.TicketQuery{Workspace: "inbox", Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Tickets)
	}
	if found("記事") != 0 || found("下書き") != 0 {
		t.Fatal("the ticket is found by its pairs before reindexing")
	}
	env := map[string]string{envStore: storeDynamoDB, envTable: table, envEndpoint: mini.URL}
	var stdout, stderr bytes.Buffer
	cmd := command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stderr.String(), "2 items of the earlier index deleted") {
		t.Fatalf("reindex-words: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	for _, q := range []string{"記事", "下書き", "LED点滅", "記事案", "ブログ"} {
		if found(q) != 1 {
			t.Errorf("after reindex-words %q does not find the ticket", q)
		}
	}
	for pk, sk := range earlier {
		for _, item := range partition(pk) {
			if item["sk"].(*types.AttributeValueMemberS).Value == sk {
				t.Errorf("the earlier item %s %s is still there", pk, sk)
			}
		}
	}
}
