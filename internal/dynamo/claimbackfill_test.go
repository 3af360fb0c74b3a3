package dynamo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// Tickets from before the claimable index carry none of its keys, so
// claim_next does not see them; the backfill gives each the keys a write
// of the ticket gives it now (the same values), takes them from a ticket
// the rule no longer places in the index, writes nothing the second time,
// and says where to resume when it stops.
func TestBackfillClaimable(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			e := ep.newEndpoint(t)
			table := tableName()
			s := openStore(t, e, nil, dynamo.Config{Table: table, SerializeWrites: ep.name == "moto"})
			svc := newService(t, s)
			client := testClient(t, e, nil)
			ctx := t.Context()
			person := board.WithPrincipal(ctx, board.Principal{Author: "human:alice", Source: board.SourceWeb})
			for _, c := range []struct{ ws, title string }{{"inbox", "one"}, {"inbox", "two"}, {"inbox", "three"}, {"private", "secret"}, {"reference", "ref"}} {
				if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: c.ws + c.title, Workspace: c.ws, NewTicket: board.NewTicket{Title: c.title}}); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []string{"inbox-2", "private-1"} {
				if _, err := svc.MoveTicket(person, board.MoveTicketInput{RequestID: "done-" + id, ID: id, Status: board.StatusDone}); err != nil {
					t.Fatal(err)
				}
			}

			item := func(id string) map[string]types.AttributeValue {
				t.Helper()
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: itemKey("T#"+id, "T"), ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Fatal(err)
				}
				return out.Item
			}
			claimKeys := func(id string) [2]string {
				it := item(id)
				var k [2]string
				for i, name := range []string{"cl_ws_status", "cl_key"} {
					if v, ok := it[name].(*types.AttributeValueMemberS); ok {
						k[i] = v.Value
					}
				}
				return k
			}
			written := map[string][2]string{}
			for _, id := range []string{"inbox-1", "inbox-3", "reference-1"} {
				if written[id] = claimKeys(id); written[id][0] == "" {
					t.Fatalf("%s was written without the claimable keys", id)
				}
			}
			// As a table from before the index: no ticket carries its
			// keys; and private-1, done, carries keys the rule would not
			// give it (as a ticket whose claimability changed with the
			// rule; in another workspace, since minidyn keeps an index
			// entry whose keys a put takes away).
			for _, id := range []string{"inbox-1", "inbox-3", "reference-1"} {
				rewrite(t, client, table, item(id), func(it map[string]types.AttributeValue) {
					delete(it, "cl_ws_status")
					delete(it, "cl_key")
				})
			}
			rewrite(t, client, table, item("private-1"), func(it map[string]types.AttributeValue) {
				it["cl_ws_status"] = &types.AttributeValueMemberS{Value: "private#candidate"}
				it["cl_key"] = &types.AttributeValueMemberS{Value: "2#0000000001"}
			})
			agent := board.WithPrincipal(ctx, board.Principal{Author: "ai:claude", Source: board.SourceMCP})
			if got, err := svc.ClaimNext(agent, board.ClaimNextInput{RequestID: "before", Workspace: "inbox"}); err != nil || got.Ticket != nil {
				t.Fatalf("claim_next before the backfill: %+v, %v; want none (no ticket in the index)", got.Ticket, err)
			}

			// A run stopped after the first workspace says to resume at the
			// next one.
			stopCtx, stop := context.WithCancel(ctx)
			st, err := s.BackfillClaimable(stopCtx, dynamo.ReindexFrom{}, func(string, int) { stop() })
			var stopped *dynamo.ReindexError
			if !errors.As(err, &stopped) || stopped.Resume != (dynamo.ReindexFrom{Workspace: "private"}) || st.Tickets != 3 || st.Updated != 2 {
				t.Fatalf("a stopped backfill: %v (%+v), %+v; want it to resume at private after inbox's 3 tickets, 2 written", err, stopped, st)
			}
			st, err = s.BackfillClaimable(ctx, stopped.Resume, nil)
			if err != nil || st.Tickets != 2 || st.Updated != 2 {
				t.Fatalf("the resumed backfill: %+v, %v; want private-1 and reference-1 read and written", st, err)
			}
			for id, want := range written {
				if got := claimKeys(id); got != want {
					t.Errorf("%s backfilled with %q, want %q as a write of the ticket gives it", id, got, want)
				}
			}
			for _, id := range []string{"inbox-2", "private-1"} {
				if got := claimKeys(id); got != ([2]string{}) {
					t.Errorf("%s (done) has the claimable keys %q", id, got)
				}
			}
			for _, want := range []string{"inbox-1", "inbox-3"} {
				got, err := svc.ClaimNext(agent, board.ClaimNextInput{RequestID: "after-" + want, Workspace: "inbox"})
				if err != nil || got.Ticket == nil || got.Ticket.ID != want {
					t.Fatalf("claim_next after the backfill: %+v, %v; want %s", got.Ticket, err, want)
				}
			}
			// Again: everything is as the rule says, nothing is written.
			if st, err := s.BackfillClaimable(ctx, dynamo.ReindexFrom{}, nil); err != nil || st.Tickets != 5 || st.Updated != 0 {
				t.Errorf("a second backfill: %+v, %v; want 5 tickets read, none written", st, err)
			}
		})
	}
}

func itemKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}
}

// rewrite changes an item behind the store's back: deleted, then put as
// change leaves it (minidyn applies no REMOVE in an update, and an update
// that adds an index key can displace another item's index entry).
func rewrite(t *testing.T, client *dynamodb.Client, table string, item map[string]types.AttributeValue, change func(map[string]types.AttributeValue)) {
	t.Helper()
	if _, err := client.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: itemKey(
		item["pk"].(*types.AttributeValueMemberS).Value, item["sk"].(*types.AttributeValueMemberS).Value)}); err != nil {
		t.Fatal(err)
	}
	change(item)
	if _, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}
