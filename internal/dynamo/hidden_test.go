package dynamo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// TestHiddenTicketReadsNoActivity: get_ticket decides the policy before it
// reads notes and history, so a hidden ticket with many notes costs exactly
// what an absent id costs: the same requests and items read, counted by
// RequestCounter (no Query of the ticket's partition at all). A note item
// that cannot be decoded sits in the hidden ticket's partition as well:
// reading it fails, so an answer of "not found" also shows it was not read.
func TestHiddenTicketReadsNoActivity(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			e := ep.newEndpoint(t)
			counter := &dynamo.RequestCounter{}
			table := tableName()
			s := openStore(t, e, counter, dynamo.Config{Table: table})
			svc := newService(t, s)
			person := board.WithPrincipal(context.Background(), board.Principal{Author: "human", Source: board.SourceWeb})
			if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: "c", Workspace: "private", NewTicket: board.NewTicket{Title: "secret"}}); err != nil {
				t.Fatal(err)
			}
			for i := range 30 {
				if _, err := svc.AddNote(person, board.AddNoteInput{RequestID: fmt.Sprintf("n%d", i), ID: "private-1", Body: "hidden note"}); err != nil {
					t.Fatal(err)
				}
			}
			trap := map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "T#private-1"}, "sk": &types.AttributeValueMemberS{Value: "N#9999-trap"},
				"doc": &types.AttributeValueMemberS{Value: "not json"},
			}
			if _, err := testClient(t, e, nil).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: trap}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadTicket(context.Background(), board.TicketRead{ID: "private-1", Notes: 20, Events: 20}); err == nil {
				t.Fatal("reading the trapped notes succeeded: the trap would prove nothing")
			}

			ai := aiCtx(t)
			cost := func(id string) (requests, items int, ops string) {
				t.Helper()
				counter.Reset()
				_, err := svc.GetTicket(ai, board.TicketIDInput{ID: id})
				if board.ErrorCode(err) != board.CodeNotFound {
					t.Fatalf("get_ticket(%s) as AI: %v, want not found", id, err)
				}
				return counter.Total(), counter.ItemsRead(), counter.Ops()
			}
			// Policy cached (Open read it): nothing is read at all.
			hr, hi, hops := cost("private-1")
			ar, ai2, aops := cost("private-999")
			if hr != ar || hi != ai2 || hops != aops {
				t.Errorf("policy cached: hidden ticket cost %d requests (%s), %d items; absent id %d (%s), %d", hr, hops, hi, ar, aops, ai2)
			}
			if hr != 0 {
				t.Errorf("policy cached: a hidden ticket took %d requests (%s), want 0", hr, hops)
			}

			// Policy not cached: one GetItem of the workspace, then nothing.
			svc = newService(t, openStore(t, e, counter, dynamo.Config{Table: table, PolicyTTL: -1}))
			hr, hi, hops = cost("private-1")
			ar, ai2, aops = cost("private-999")
			if hr != ar || hi != ai2 || hops != aops {
				t.Errorf("policy not cached: hidden ticket cost %d requests (%s), %d items; absent id %d (%s), %d", hr, hops, hi, ar, aops, ai2)
			}
			if hops != "GetItem" || hi != 1 {
				t.Errorf("policy not cached: a hidden ticket took %s and %d items, want one GetItem of the workspace", hops, hi)
			}
		})
	}
}
