package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// Open hands the store to Config.Early before it sends anything (the seeding
// read comes after), so a cold start's credential reads need not wait for
// the seeding; and the early store reads people and sessions. When Open is
// to create the table it does not hand it over early.
func TestOpenEarly(t *testing.T) {
	ep := minidyn(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	ctx := context.Background()
	var counter dynamo.RequestCounter
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: ep.url, Options: []func(*dynamodb.Options){counter.Register}})
	if err != nil {
		t.Fatal(err)
	}
	table := tableName()
	var early *dynamo.Store
	created, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: true, Early: func(s *dynamo.Store) { early = s }})
	if err != nil {
		t.Fatal(err)
	}
	if early != nil {
		t.Fatal("Open handed the store over early while it was to create the table")
	}
	now := time.Now()
	if err := created.CreatePerson(ctx, board.Person{Handle: "early", Name: "early", Role: board.RoleMember, CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}

	counter.Reset()
	var sentBefore = -1
	opened, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, Early: func(s *dynamo.Store) {
		early, sentBefore = s, counter.Total()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if early != opened || sentBefore != 0 {
		t.Fatalf("Early got %p after %d requests; want the store Open returned (%p), before any request", early, sentBefore, opened)
	}
	if counter.Total() == 0 {
		t.Fatal("Open sent nothing after handing the store over: the seeding read is missing")
	}
	if p, err := early.GetPerson(ctx, "early"); err != nil || p.Handle != "early" {
		t.Fatalf("GetPerson on the early store: %+v, %v", p, err)
	}
}
