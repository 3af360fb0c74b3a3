package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// moveRelations: a moved relation is stored at both ends once, and a
// ticket blocked by a moved blocker that is not done is not ready (not
// claimable) until that blocker is done, while one whose blocker is done
// is; the tickets keep their versions, and the export streams the
// relations back in their order.
func moveRelations(t *testing.T, f *fixture) {
	m := f.s
	now := f.now()
	out, err := m.PutWorkspace(f.ctx, board.TransferredWorkspace{Slug: "ops", Name: "Ops", AIPolicy: board.PolicyReadWrite, Next: 1})
	wantPut(t, "workspace", out, err, board.Added)
	tickets := []board.Ticket{
		newTicket("ops", 1, alice, now, withStatus(board.StatusDoing)), // blocks 2, parent of 5
		newTicket("ops", 2, alice, now),                                // blocked by an open blocker
		newTicket("ops", 3, alice, now, withStatus(board.StatusDone)),  // blocks 4
		newTicket("ops", 4, alice, now),                                // blocked by a done blocker
		newTicket("ops", 5, alice, now),
	}
	for _, tk := range tickets {
		out, err := m.PutTicket(f.ctx, tk)
		wantPut(t, tk.ID, out, err, board.Added)
	}
	if _, err := m.PutRelation(f.ctx, board.TransferredRelation{Kind: board.RelationBlocks, From: "ops-1", To: "ops-9"}); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("relation to a missing ticket: %v, want ErrNotFound", err)
	}
	rels := []board.TransferredRelation{
		{Kind: board.RelationBlocks, From: "ops-1", To: "ops-2"},
		{Kind: board.RelationParent, From: "ops-1", To: "ops-5"},
		{Kind: board.RelationBlocks, From: "ops-3", To: "ops-4"},
	}
	for _, r := range rels {
		out, err := m.PutRelation(f.ctx, r)
		wantPut(t, r.String(), out, err, board.Added)
		out, err = m.PutRelation(f.ctx, r)
		wantPut(t, r.String()+" again", out, err, board.AlreadyThere)
	}

	r, err := m.ReadRelations(f.ctx, "ops-1")
	if err != nil || strings.Join(relatedIDs(r.Blocks), ",") != "ops-2" || strings.Join(relatedIDs(r.Children), ",") != "ops-5" || r.Parent != nil {
		t.Errorf("ops-1's relations: %+v, %v", r, err)
	}
	r, err = m.ReadRelations(f.ctx, "ops-2")
	if err != nil || strings.Join(relatedIDs(r.BlockedBy), ",") != "ops-1" {
		t.Errorf("ops-2's relations: %+v, %v", r, err)
	}
	r, err = m.ReadRelations(f.ctx, "ops-5")
	if err != nil || r.Parent == nil || r.Parent.ID != "ops-1" {
		t.Errorf("ops-5's relations: %+v, %v", r, err)
	}
	for _, tk := range tickets {
		if got := f.ticket(tk.ID); got.Version != tk.Version {
			t.Errorf("%s is at version %d after its relations moved, want %d", tk.ID, got.Version, tk.Version)
		}
	}
	// ops-2 waits for ops-1; ops-4's blocker is done; ops-5 has none.
	f.wantClaimable("after the move", "ops-4", "ops-5")
	if got, _ := f.listIDs(board.TicketQuery{Workspace: "ops", Ready: true}); !sameSet(got, []string{"ops-4", "ops-5"}) {
		t.Errorf("ready tickets after the move: %v, want ops-4 and ops-5", got)
	}
	// The moved count is the one a blocker's move keeps: ops-1 done
	// frees ops-2.
	f.save(f.moveTx(f.ticket("ops-1"), "finish-ops-1", board.StatusDone, ""))
	f.wantClaimable("after ops-1 is done", "ops-2", "ops-4", "ops-5")

	var exported []board.TransferredRelation
	if err := m.TransferRelations(f.ctx, "ops", func(r board.TransferredRelation) error {
		exported = append(exported, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(exported, rels) {
		t.Errorf("exported relations %v, want %v", exported, rels)
	}
	var none []board.TransferredRelation
	if err := m.TransferRelations(f.ctx, "inbox", func(r board.TransferredRelation) error {
		none = append(none, r)
		return nil
	}); err != nil || len(none) > 0 {
		t.Errorf("relations of inbox: %v, %v; want none", none, err)
	}
}

// wantClaimable checks the candidate tickets of ops claim_next may hand
// out.
func (f *fixture) wantClaimable(when string, want ...string) {
	f.t.Helper()
	found, err := f.s.ClaimCandidates(f.ctx, board.ClaimQuery{Workspace: "ops", Status: board.StatusCandidate, Now: f.now(), Limit: 10})
	if err != nil {
		f.t.Fatalf("ClaimCandidates %s: %v", when, err)
	}
	if got := ticketIDs(found.Tickets); !sameSet(got, want) {
		f.t.Errorf("claimable %s: %v, want %v", when, got, want)
	}
}
