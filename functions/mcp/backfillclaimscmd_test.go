package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// backfill-claims puts tickets written before the claimable index into it,
// so claim_next finds them; a second run writes nothing; on SQLite it says
// the migration does it.
func TestBackfillClaimsCommand(t *testing.T) {
	ctx := context.Background()
	store, client, table, env := newReindexTable(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tk := board.Ticket{ID: "inbox-1", Workspace: "inbox", Number: 1, Title: "Old ticket", Status: board.StatusCandidate, Priority: board.PriorityNormal,
		Tags: []string{}, Links: []board.Link{}, CreatedBy: "ai:x", CreatedAt: now, UpdatedAt: now, Version: 1}
	putTickets(t, store, tk)
	// As a table from before the index: the ticket without its keys
	// (deleted and put again: minidyn applies no REMOVE in an update).
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "T#inbox-1"}, "sk": &types.AttributeValueMemberS{Value: "T"}}
	got, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	if err != nil || got.Item["cl_ws_status"] == nil {
		t.Fatalf("the loaded ticket: %v, %v; want it with the claimable keys", got.Item, err)
	}
	delete(got.Item, "cl_ws_status")
	delete(got.Item, "cl_key")
	if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: got.Item}); err != nil {
		t.Fatal(err)
	}
	candidates := func() int {
		c, err := store.ClaimCandidates(ctx, board.ClaimQuery{Workspace: "inbox", Status: board.StatusCandidate, Now: now, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return len(c.Tickets)
	}
	if n := candidates(); n != 0 {
		t.Fatalf("%d claimable tickets before the backfill, want 0", n)
	}

	for _, want := range []string{"1 written", "0 written"} {
		var stdout, stderr bytes.Buffer
		cmd := command{args: []string{"backfill-claims"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
		if code := cmd.run(ctx); code != exitOK || !strings.Contains(stdout.String(), "inbox\t1 tickets\n") || !strings.Contains(stderr.String(), want) {
			t.Fatalf("backfill-claims: exit %d, stdout %q, stderr %q; want %s", code, stdout.String(), stderr.String(), want)
		}
		if n := candidates(); n != 1 {
			t.Errorf("%d claimable tickets after the backfill, want 1", n)
		}
	}

	var stdout, stderr bytes.Buffer
	cmd := command{args: []string{"backfill-claims"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(map[string]string{envStore: storeSQLite, envData: t.TempDir()})}
	if code := cmd.run(ctx); code != exitFailed || !strings.Contains(stderr.String(), "schema migration builds") {
		t.Errorf("backfill-claims on SQLite: exit %d, stderr %q", code, stderr.String())
	}
}
