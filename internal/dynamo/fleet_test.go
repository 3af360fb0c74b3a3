package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// TestFleetCreatesIntoOneWorkspace: 32 instances (8 on moto, which answers
// one write at a time) create into one workspace at once under the
// conflict model, each also sending again a request of the next instance
// (a client retrying on another instance). Every call succeeds; the board
// holds one ticket per request_id, as many as acknowledged creates, with
// distinct numbers; each request's answers name the same ticket and
// exactly one of them created it; the counts match the tickets; and no
// two transactions met on a workspace-wide item (count shard or counter).
func TestFleetCreatesIntoOneWorkspace(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			// 12 creates: each instance leases a block of 10, then one of 20.
			instances, creates := 32, 12
			var cfg dynamo.Config
			if ep.name == "moto" {
				instances, creates = 8, 3
				cfg.CounterRaceBudget = 2 * time.Minute // moto is slow, not the protocol
			}
			e := ep.newEndpoint(t)
			c := newConflicted(t, e)
			svcs := make([]*board.Service, instances)
			for i := range svcs {
				svcs[i] = loggedService(t, c.open(t, cfg))
			}
			c.in.Reset()
			type answer struct {
				rid, id  string
				replayed bool
			}
			answers := make([][]answer, instances)
			errs := make([]error, instances)
			ctx := aiCtx(t)
			storetest.Together(instances, func(i int) {
				rids := make([]string, 0, creates+1)
				for k := range creates {
					rids = append(rids, fmt.Sprintf("i%02d-c%d", i, k))
				}
				rids = append(rids, fmt.Sprintf("i%02d-c0", (i+1)%instances)) // a retry elsewhere
				for _, rid := range rids {
					res, err := svcs[i].CreateTicket(ctx, board.CreateTicketInput{RequestID: rid, Workspace: "inbox", NewTicket: board.NewTicket{Title: "fleet " + rid}})
					if err != nil {
						errs[i] = fmt.Errorf("%s: %w", rid, err)
						return
					}
					answers[i] = append(answers[i], answer{rid, res.Ticket.ID, res.Replayed})
				}
			})
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			byRID := map[string]string{}
			firsts := map[string]int{}
			for _, as := range answers {
				for _, a := range as {
					if id, ok := byRID[a.rid]; ok && id != a.id {
						t.Errorf("request %s answered %s and %s", a.rid, id, a.id)
					}
					byRID[a.rid] = a.id
					if !a.replayed {
						firsts[a.rid]++
					}
				}
			}
			for rid := range byRID {
				if firsts[rid] != 1 {
					t.Errorf("request %s: %d answers said they created the ticket, want 1", rid, firsts[rid])
				}
			}
			if len(byRID) != instances*creates {
				t.Fatalf("%d request_ids acknowledged, want %d", len(byRID), instances*creates)
			}

			fresh := c.open(t, cfg)
			stored := map[string]string{} // title → id
			numbers := map[int64]bool{}
			if err := fresh.TransferTickets(context.Background(), "inbox", func(tk board.Ticket) error {
				if id, ok := stored[tk.Title]; ok {
					t.Errorf("title %q held by %s and %s", tk.Title, id, tk.ID)
				}
				stored[tk.Title] = tk.ID
				if numbers[tk.Number] {
					t.Errorf("number %d given twice", tk.Number)
				}
				numbers[tk.Number] = true
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(stored) != len(byRID) {
				t.Errorf("the board holds %d tickets, %d creates were acknowledged", len(stored), len(byRID))
			}
			for rid, id := range byRID {
				if stored["fleet "+rid] != id {
					t.Errorf("request %s was answered with %s, the board holds %q", rid, id, stored["fleet "+rid])
				}
			}
			ws, err := fresh.GetWorkspace(context.Background(), "inbox")
			if err != nil {
				t.Fatal(err)
			}
			if ws.Counts[board.StatusCandidate] != len(stored) || len(ws.Counts) != 1 {
				t.Errorf("counts %v, the board holds %d candidates", ws.Counts, len(stored))
			}
			st := c.in.Stats()
			t.Logf("%d creates by %d instances: conflicts by kind %v; counter item written %d times",
				len(stored), instances, st.Conflicts, c.in.Writes("", "WN#inbox"))
			if n := st.Conflicts["WS"] + st.Conflicts["WN#"]; n != 0 {
				t.Errorf("%d conflicts on workspace-wide items (count shards, counter): %v", n, st.Conflicts)
			}
			// Distinct shards below 64 instances whatever their blocks: each
			// instance took one slot of the sequence, not one per block.
			if slots := counterItem(t, e, c.table)["slots"]; slots != int64(instances) {
				t.Errorf("%d count-shard slots taken by %d instances, want one each", slots, instances)
			}
		})
	}
}

// TestCounterStartsFromTheWorkspaceItem: a workspace from before counter
// items (its workspace item holds next_number and counts, no counter item
// exists) goes on numbering from its next_number, on two instances whose
// first creates race to make the counter item; the counts add the old
// ones to the shards'.
func TestCounterStartsFromTheWorkspaceItem(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			e := ep.newEndpoint(t)
			table := tableName()
			openStore(t, e, nil, dynamo.Config{Table: table})
			client := testClient(t, e, nil)
			// As a table from before counter items: no counter, the
			// workspace item's next_number and counts in use.
			if _, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
				TableName: aws.String(table),
				Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "WN#inbox"}, "sk": &types.AttributeValueMemberS{Value: "N"}},
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
				TableName:                 aws.String(table),
				Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "WS"}, "sk": &types.AttributeValueMemberS{Value: "inbox"}},
				UpdateExpression:          aws.String("SET next_number = :n, n_candidate = :c"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "42"}, ":c": &types.AttributeValueMemberN{Value: "3"}},
			}); err != nil {
				t.Fatal(err)
			}
			a := newService(t, openStore(t, e, nil, dynamo.Config{Table: table}))
			b := newService(t, openStore(t, e, nil, dynamo.Config{Table: table}))
			results := make([]board.TicketResult, 2)
			errs := make([]error, 2)
			storetest.Together(2, func(i int) {
				results[i], errs[i] = []*board.Service{a, b}[i].CreateTicket(aiCtx(t), board.CreateTicketInput{RequestID: fmt.Sprintf("old-%d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: "after the upgrade"}})
			})
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			n0, n1 := results[0].Ticket.Number, results[1].Ticket.Number
			if n0 < 42 || n1 < 42 || n0 == n1 {
				t.Errorf("numbers %d and %d, want two distinct ones from 42 on", n0, n1)
			}
			if min(n0, n1) != 42 {
				t.Errorf("the first number is %d, want 42 (the workspace item's next_number)", min(n0, n1))
			}
			if got := inboxCandidates(t, a); got != 5 {
				t.Errorf("candidates %d, want 5 (3 kept on the workspace item, 2 on shards)", got)
			}
		})
	}
}

// TestPolicyChangeRefusesOtherInstances: once one instance has changed a
// workspace's policy, the next AI write on another instance (which wrote
// there a moment ago, and so has the old policy cached) is refused, for a
// create, a move and a note; back to read_write, it is allowed again.
func TestPolicyChangeRefusesOtherInstances(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			c := newConflicted(t, ep.newEndpoint(t))
			admin := c.open(t, dynamo.Config{})
			writer := loggedService(t, c.open(t, dynamo.Config{PolicyTTL: time.Hour}))
			ctx := aiCtx(t)
			first := mustCreate(t, writer, "before", "written before the change")
			setPolicy := func(p board.AIPolicy) {
				ev := board.Event{ID: "ev-" + string(p), Workspace: "inbox", Type: board.EventWorkspaceUpdated, Author: "human", Source: board.SourceWeb, At: time.Now()}
				if err := admin.SetWorkspacePolicy(context.Background(), "inbox", p, ev); err != nil {
					t.Fatal(err)
				}
			}
			setPolicy(board.PolicyReadOnly)
			_, err := writer.CreateTicket(ctx, board.CreateTicketInput{RequestID: "after-create", Workspace: "inbox", NewTicket: board.NewTicket{Title: "refused"}})
			if board.ErrorCode(err) != board.CodeForbidden {
				t.Errorf("create after the change: %v, want forbidden", err)
			}
			_, err = writer.MoveTicket(ctx, board.MoveTicketInput{RequestID: "after-move", ID: first.Ticket.ID, Status: board.StatusDoing})
			if board.ErrorCode(err) != board.CodeForbidden {
				t.Errorf("move after the change: %v, want forbidden", err)
			}
			_, err = writer.AddNote(ctx, board.AddNoteInput{RequestID: "after-note", ID: first.Ticket.ID, Body: "refused"})
			if board.ErrorCode(err) != board.CodeForbidden {
				t.Errorf("note after the change: %v, want forbidden", err)
			}
			setPolicy(board.PolicyReadWrite)
			if _, err := writer.MoveTicket(ctx, board.MoveTicketInput{RequestID: "again-move", ID: first.Ticket.ID, Status: board.StatusDoing}); err != nil {
				t.Errorf("move once read_write again: %v", err)
			}
			mustCreate(t, writer, "again-create", "allowed again")
		})
	}
}

// TestBlocksGrowWithTheRate: an instance creating quickly leases a block
// of 10, then one of 20 (a block used up within 10 s doubles the next):
// 25 creates write the counter item twice, and it stands at 31. Only the
// first lease takes a count-shard slot: the instance keeps its shard while
// its slot is fresh, so a busy fleet does not run the slot sequence round
// onto a shard an older slot still holds.
func TestBlocksGrowWithTheRate(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			e := ep.newEndpoint(t)
			table := tableName()
			svc := newService(t, openStore(t, e, nil, dynamo.Config{Table: table, SerializeWrites: e.name == "moto"}))
			for i := range 25 {
				if got := mustCreate(t, svc, fmt.Sprintf("r%d", i), "quick"); got.Ticket.Number != int64(i+1) {
					t.Fatalf("create %d got number %d, want %d (one instance's numbers follow each other)", i, got.Ticket.Number, i+1)
				}
			}
			if got := counterItem(t, e, table); got["next"] != 31 || got["slots"] != 1 {
				t.Errorf("counter item %v, want next 31 (blocks of 10 and 20) after 2 leases, and 1 slot taken (the first lease's)", got)
			}
		})
	}
}

// counterItem reads the inbox's counter item: its numbers, by attribute.
func counterItem(t *testing.T, e endpoint, table string) map[string]int64 {
	t.Helper()
	out, err := testClient(t, e, nil).GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "WN#inbox"}, "sk": &types.AttributeValueMemberS{Value: "N"}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for name, v := range out.Item {
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			if got[name], err = strconv.ParseInt(n.Value, 10, 64); err != nil {
				t.Fatalf("counter item's %s: %v", name, err)
			}
		}
	}
	return got
}
