package dynamo_test

import (
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestPolicyCacheBound: a workspace hidden through another instance stays
// readable through this one for PolicyTTL at most, by this store's clock.
// Just before the bound the cached policy answers (the read is one
// request); at the bound the policy is read again (first, so the ticket,
// hidden now, is not read at all) and the ticket is gone.
func TestPolicyCacheBound(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			e := ep.newEndpoint(t)
			table := tableName()
			moto := e.name == "moto"
			clock := testbackends.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
			counter := &dynamo.RequestCounter{}
			a := newService(t, openStore(t, e, counter, dynamo.Config{Table: table, Now: clock.Now, PolicyTTL: 5 * time.Second, SerializeWrites: moto}))
			b := newService(t, openStore(t, e, nil, dynamo.Config{Table: table, SerializeWrites: moto}))
			made := mustCreate(t, a, "c", "soon hidden") // Open read the policy at the clock's start
			if _, err := b.SetWorkspacePolicy(board.WithPrincipal(t.Context(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb}),
				board.SetWorkspacePolicyInput{Workspace: "inbox", AIPolicy: board.PolicyHidden}); err != nil {
				t.Fatal(err)
			}

			clock.Add(5*time.Second - time.Nanosecond)
			counter.Reset()
			if _, err := a.GetTicket(aiCtx(t), board.TicketIDInput{ID: made.Ticket.ID}); err != nil {
				t.Fatalf("get_ticket just inside the bound: %v, want the cached policy to answer", err)
			}
			if n := counter.Total(); n != 2 {
				t.Errorf("get_ticket inside the bound sent %d requests (%s), want 2 (the ticket, its relations): the policy from the cache", n, counter.Ops())
			}

			clock.Add(time.Nanosecond)
			counter.Reset()
			_, err := a.GetTicket(aiCtx(t), board.TicketIDInput{ID: made.Ticket.ID})
			if board.ErrorCode(err) != board.CodeNotFound {
				t.Fatalf("get_ticket at the bound: %v, want not found (the policy read again)", err)
			}
			if n := counter.Total(); n != 1 || counter.Ops() != "GetItem" {
				t.Errorf("get_ticket at the bound sent %d requests (%s), want 1 GetItem: the policy read again first, and the hidden ticket not read", n, counter.Ops())
			}
		})
	}
}
