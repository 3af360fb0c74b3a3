package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Relations (board/relations.go): blocks and parent links, their rules,
// readiness and claim_next, the same on every store.

func relationTests() []contractTest {
	return []contractTest{
		{"a link is shown from both ends, with history on both, and removed from both", testRelationBothEnds},
		{"cycles of either kind are refused, saying which tickets close them", testRelationCycles},
		{"a ticket has one parent, and a ticket at most 50 links of a kind", testRelationLimits},
		{"parents nest at most 5 deep, counting the sub-tickets below", testRelationDepth},
		{"ready: open with every blocker done; list_tickets filters ready and parent", testRelationReady},
		{"claim_next hands out only ready tickets", testRelationClaimNext},
		{"a replay answers the first answer; AI is refused in read-only workspaces, hidden ones do not exist", testRelationReplayAndPolicy},
		{"an import relates its rows by key and to existing tickets, once, and answers each key's ticket", testImportPlan},
		{"an import whose plan breaks a rule is refused whole, naming the row and rule", testImportPlanRefused},
	}
}

// newRelationRig is a claimRig, whose helpers relations share.
func newRelationRig(t *testing.T, f *fixture) *claimRig { return newClaimRig(t, f) }

func (r *claimRig) relate(t *testing.T, id string, kind board.RelationKind, other string) board.RelationResult {
	t.Helper()
	res, err := r.svc.RelateTickets(agentCtx(r.f, "planner"), board.RelateInput{RequestID: r.f.id("rel"), ID: id, Kind: kind, Other: other})
	if err != nil {
		t.Fatalf("relate %s %s %s: %v", id, kind, other, err)
	}
	return res
}

func (r *claimRig) refuse(t *testing.T, id string, kind board.RelationKind, other string, code board.Code, words ...string) {
	t.Helper()
	_, err := r.svc.RelateTickets(agentCtx(r.f, "planner"), board.RelateInput{RequestID: r.f.id("rel"), ID: id, Kind: kind, Other: other})
	wantCode(t, fmt.Sprintf("relate %s %s %s", id, kind, other), err, code, words...)
}

func (r *claimRig) move(t *testing.T, id string, st board.Status) {
	t.Helper()
	if _, err := r.svc.MoveTicket(personCtx(r.f, "alice"), board.MoveTicketInput{RequestID: r.f.id("mv"), ID: id, Status: st}); err != nil {
		t.Fatalf("move %s to %s: %v", id, st, err)
	}
}

func (r *claimRig) list(t *testing.T, in board.ListTicketsInput) []string {
	t.Helper()
	if in.Workspace == "" {
		in.Workspace = "inbox"
	}
	page, err := r.svc.ListTickets(personCtx(r.f, "alice"), in)
	if err != nil {
		t.Fatalf("list %+v: %v", in, err)
	}
	var ids []string
	for _, tk := range page.Tickets {
		ids = append(ids, tk.ID)
	}
	return ids
}

func relatedIDs(rs []board.RelatedTicket) []string {
	var ids []string
	for _, x := range rs {
		ids = append(ids, x.ID)
	}
	return ids
}

func testRelationBothEnds(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	a := r.ticket(t, "inbox", "Write the parser")
	b := r.ticket(t, "inbox", "Ship the parser")
	p := r.ticket(t, "inbox", "Parser epic")
	res := r.relate(t, a, board.RelationBlocks, b)
	if !res.Changed || res.Ticket.ID != a || res.Other.ID != b || res.Other.Title != "Ship the parser" {
		t.Fatalf("relate answer %+v", res)
	}
	r.relate(t, p, board.RelationParent, a)
	r.relate(t, p, board.RelationParent, b)

	db := r.get(t, b)
	if got := relatedIDs(db.BlockedBy); !slices.Equal(got, []string{a}) || db.BlockedBy[0].Title != "Write the parser" || db.BlockedBy[0].Status != board.StatusCandidate {
		t.Errorf("%s blocked_by %+v, want %s with title and status", b, db.BlockedBy, a)
	}
	if db.Ready {
		t.Errorf("%s is ready while %s is not done", b, a)
	}
	if db.Parent == nil || db.Parent.ID != p {
		t.Errorf("%s parent %+v, want %s", b, db.Parent, p)
	}
	da := r.get(t, a)
	if got := relatedIDs(da.Blocks); !slices.Equal(got, []string{b}) || !da.Ready || len(da.BlockedBy) != 0 {
		t.Errorf("%s blocks %v blocked_by %v ready %v, want blocks %s and ready", a, got, da.BlockedBy, da.Ready, b)
	}
	dp := r.get(t, p)
	if got := relatedIDs(dp.Children.Tickets); !slices.Equal(got, []string{a, b}) || dp.Children.Total != 2 || dp.Children.Done != 0 {
		t.Errorf("%s children %+v, want %s and %s, none done", p, dp.Children, a, b)
	}
	r.move(t, a, board.StatusDone)
	if dp := r.get(t, p); dp.Children.Done != 1 {
		t.Errorf("children done %d after %s moved to done, want 1", dp.Children.Done, a)
	}
	// History on both ends, each from its own end.
	ea, eb := r.lastEventOf(t, a, board.EventTicketRelated), r.lastEventOf(t, b, board.EventTicketRelated)
	if ea.Relation != board.EndChild || ea.Other != p || eb.Relation != board.EndChild {
		t.Errorf("last related events: %s %+v, %s %+v", a, ea, b, eb)
	}
	first := r.get(t, a).History
	if !slices.ContainsFunc(first, func(e board.Event) bool {
		return e.Type == board.EventTicketRelated && e.Relation == board.EndBlocks && e.Other == b && e.Author == "ai:planner"
	}) {
		t.Errorf("%s's history has no related event blocks %s by ai:planner: %+v", a, b, first)
	}
	// Relating again changes nothing and writes no event.
	before := len(r.get(t, b).History)
	if again := r.relate(t, a, board.RelationBlocks, b); again.Changed {
		t.Errorf("relating again answered changed")
	}
	if n := len(r.get(t, b).History); n != before {
		t.Errorf("relating again wrote history: %d events, want %d", n, before)
	}
	// Removed from both ends at once.
	un, err := r.svc.UnrelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "un1", ID: a, Kind: board.RelationBlocks, Other: b})
	if err != nil || !un.Changed {
		t.Fatalf("unrelate: %+v %v", un, err)
	}
	if da, db := r.get(t, a), r.get(t, b); len(da.Blocks) != 0 || len(db.BlockedBy) != 0 {
		t.Errorf("after unrelate: %s blocks %v, %s blocked_by %v", a, da.Blocks, b, db.BlockedBy)
	}
	if e := r.lastEventOf(t, b, board.EventTicketUnrelated); e.Relation != board.EndBlockedBy || e.Other != a {
		t.Errorf("%s's unrelated event %+v", b, e)
	}
	un, err = r.svc.UnrelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "un2", ID: a, Kind: board.RelationBlocks, Other: b})
	if err != nil || un.Changed {
		t.Errorf("unrelating what is gone: %+v %v, want unchanged", un, err)
	}
	// Bad input: nothing written, and the answer says what to do.
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "self", ID: a, Kind: board.RelationBlocks, Other: a})
	wantCode(t, "relating a ticket to itself", err, board.CodeInvalid, "itself")
	other := r.ticket(t, "reference", "Elsewhere")
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "ws", ID: a, Kind: board.RelationBlocks, Other: other})
	wantCode(t, "relating across workspaces", err, board.CodeInvalid, "one workspace")
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "kind", ID: a, Kind: "follows", Other: b})
	wantCode(t, "an unknown kind", err, board.CodeInvalid, "blocks", "parent")
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "gone", ID: a, Kind: board.RelationBlocks, Other: "inbox-999"})
	wantCode(t, "a ticket that does not exist", err, board.CodeNotFound)
}

func (r *claimRig) lastEventOf(t *testing.T, id, typ string) board.Event {
	t.Helper()
	h := r.get(t, id).History
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Type == typ {
			return h[i]
		}
	}
	t.Fatalf("%s has no %s event: %+v", id, typ, h)
	return board.Event{}
}

func testRelationCycles(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	a, b, c := r.ticket(t, "inbox", "a"), r.ticket(t, "inbox", "b"), r.ticket(t, "inbox", "c")
	r.relate(t, a, board.RelationBlocks, b)
	r.relate(t, b, board.RelationBlocks, c)
	r.refuse(t, c, board.RelationBlocks, a, board.CodeConflict, "cycle", b, "unrelate_tickets")
	r.refuse(t, b, board.RelationBlocks, a, board.CodeConflict, "cycle")
	if d := r.get(t, a); len(d.BlockedBy) != 0 {
		t.Errorf("a refused link was written: %s blocked_by %v", a, d.BlockedBy)
	}
	r.relate(t, a, board.RelationBlocks, c) // a shortcut is no cycle
	p, q, s := r.ticket(t, "inbox", "p"), r.ticket(t, "inbox", "q"), r.ticket(t, "inbox", "s")
	r.relate(t, p, board.RelationParent, q)
	r.relate(t, q, board.RelationParent, s)
	r.refuse(t, s, board.RelationParent, p, board.CodeConflict, "cycle")
	r.refuse(t, q, board.RelationParent, p, board.CodeConflict, "cycle")
}

func testRelationLimits(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	p1, p2, x := r.ticket(t, "inbox", "p1"), r.ticket(t, "inbox", "p2"), r.ticket(t, "inbox", "x")
	r.relate(t, p1, board.RelationParent, x)
	r.refuse(t, p2, board.RelationParent, x, board.CodeConflict, "one parent", "unrelate_tickets", p1)
	if again := r.relate(t, p1, board.RelationParent, x); again.Changed {
		t.Errorf("the same parent again answered changed")
	}
	hub := r.ticket(t, "inbox", "hub")
	for i := range board.MaxRelations {
		r.relate(t, hub, board.RelationBlocks, r.ticket(t, "inbox", fmt.Sprintf("blocked %d", i)))
	}
	extra := r.ticket(t, "inbox", "one too many")
	r.refuse(t, hub, board.RelationBlocks, extra, board.CodeConflict, "50", "sub-tickets")
	if d := r.get(t, hub); len(d.Blocks) != board.MaxRelations {
		t.Errorf("hub blocks %d tickets, want %d", len(d.Blocks), board.MaxRelations)
	}
}

func testRelationDepth(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	var levels []string
	for i := range board.MaxNesting {
		levels = append(levels, r.ticket(t, "inbox", fmt.Sprintf("level %d", i+1)))
		if i > 0 {
			r.relate(t, levels[i-1], board.RelationParent, levels[i])
		}
	}
	sixth := r.ticket(t, "inbox", "level 6")
	r.refuse(t, levels[4], board.RelationParent, sixth, board.CodeConflict, "6 levels", "at most 5")
	// A subtree two levels high fits under level 3, not under level 4.
	top, sub := r.ticket(t, "inbox", "subtree top"), r.ticket(t, "inbox", "subtree leaf")
	r.relate(t, top, board.RelationParent, sub)
	r.refuse(t, levels[3], board.RelationParent, top, board.CodeConflict, "at most 5")
	r.relate(t, levels[2], board.RelationParent, top)
}

func testRelationReady(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	a, b, p := r.ticket(t, "inbox", "first"), r.ticket(t, "inbox", "then"), r.ticket(t, "inbox", "plan")
	free := r.ticket(t, "inbox", "free")
	r.relate(t, a, board.RelationBlocks, b)
	r.relate(t, p, board.RelationParent, b)
	r.relate(t, p, board.RelationParent, free)
	ready := r.list(t, board.ListTicketsInput{Ready: true})
	if slices.Contains(ready, b) || !slices.Contains(ready, a) || !slices.Contains(ready, free) {
		t.Errorf("ready %v: want %s and %s, not the blocked %s", ready, a, free, b)
	}
	if got := r.list(t, board.ListTicketsInput{Parent: p}); !slices.Equal(got, []string{free, b}) {
		t.Errorf("parent %s lists %v, want %s, %s", p, got, free, b)
	}
	if got := r.list(t, board.ListTicketsInput{Parent: p, Ready: true}); !slices.Equal(got, []string{free}) {
		t.Errorf("parent and ready list %v, want %s", got, free)
	}
	r.move(t, a, board.StatusDone)
	if !r.get(t, b).Ready || !slices.Contains(r.list(t, board.ListTicketsInput{Ready: true}), b) {
		t.Errorf("%s not ready once its blocker is done", b)
	}
	if slices.Contains(r.list(t, board.ListTicketsInput{Ready: true}), a) {
		t.Errorf("the done %s is listed ready", a)
	}
	r.move(t, a, board.StatusDoing) // reopened: b waits again
	if r.get(t, b).Ready {
		t.Errorf("%s ready while its blocker is open again", b)
	}
	r.move(t, b, board.StatusWaitingAI)
	r.move(t, a, board.StatusDone)
	if !r.get(t, b).Ready {
		t.Errorf("%s in waiting_ai with its blocker done is not ready", b)
	}
	r.move(t, b, board.StatusHold)
	if r.get(t, b).Ready {
		t.Errorf("%s on hold is ready", b)
	}
	_, err := r.svc.ListTickets(personCtx(f, "alice"), board.ListTicketsInput{Workspace: "inbox", Parent: "reference-1"})
	wantCode(t, "a parent of another workspace", err, board.CodeInvalid, "parent")
}

func testRelationClaimNext(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	first := r.ticket(t, "inbox", "first", func(in *board.CreateTicketInput) { in.Priority = board.PriorityLow })
	urgent := r.ticket(t, "inbox", "urgent but blocked", func(in *board.CreateTicketInput) { in.Priority = board.PriorityUrgent })
	r.relate(t, first, board.RelationBlocks, urgent)
	next := func() *board.Ticket {
		t.Helper()
		res, err := r.svc.ClaimNext(agentCtx(f, "worker"), board.ClaimNextInput{RequestID: f.id("next"), Workspace: "inbox"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Ticket
	}
	if got := next(); got == nil || got.ID != first {
		t.Fatalf("claim_next gave %+v, want the unblocked %s", got, first)
	}
	if got := next(); got != nil {
		t.Fatalf("claim_next gave the blocked %s", got.ID)
	}
	r.move(t, first, board.StatusDone)
	if got := next(); got == nil || got.ID != urgent {
		t.Fatalf("claim_next gave %+v, want %s once its blocker is done", got, urgent)
	}
}

func testRelationReplayAndPolicy(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	a, b := r.ticket(t, "inbox", "a"), r.ticket(t, "inbox", "b")
	in := board.RelateInput{RequestID: "once", ID: a, Kind: board.RelationBlocks, Other: b}
	first, err := r.svc.RelateTickets(agentCtx(f, "planner"), in)
	if err != nil || first.Replayed {
		t.Fatalf("first relate: %+v %v", first, err)
	}
	r.move(t, b, board.StatusDoing)
	again, err := r.svc.RelateTickets(agentCtx(f, "planner"), in)
	if err != nil || !again.Replayed || !again.Changed || again.Other.Status != board.StatusCandidate {
		t.Fatalf("replay %+v %v: want the first answer, replayed", again, err)
	}
	history := len(r.get(t, b).History)
	if _, err := r.svc.RelateTickets(agentCtx(f, "planner"), in); err != nil || len(r.get(t, b).History) != history {
		t.Errorf("a replay wrote: %v", err)
	}
	in.Other = r.ticket(t, "inbox", "c")
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), in)
	wantCode(t, "the same request_id with other arguments", err, board.CodeRequestReused)

	ref1, ref2 := r.ticket(t, "reference", "r1"), r.ticket(t, "reference", "r2")
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "ro", ID: ref1, Kind: board.RelationBlocks, Other: ref2})
	wantCode(t, "an agent relating in a read-only workspace", err, board.CodeForbidden, "read-only")
	if _, err := r.svc.RelateTickets(personCtx(f, "alice"), board.RelateInput{RequestID: "ro", ID: ref1, Kind: board.RelationBlocks, Other: ref2}); err != nil {
		t.Errorf("a person relating in a read-only workspace: %v", err)
	}
	h1, h2 := r.ticket(t, "private", "h1"), r.ticket(t, "private", "h2")
	_, err = r.svc.RelateTickets(agentCtx(f, "planner"), board.RelateInput{RequestID: "hid", ID: h1, Kind: board.RelationParent, Other: h2})
	wantCode(t, "an agent relating in a hidden workspace", err, board.CodeNotFound)
}
