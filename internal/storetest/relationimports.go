package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Plan imports: import_tickets rows that name each other by key and say
// their parent and blockers, judged whole before anything is written and
// related exactly once.

func row(title, key, parent string, blockedBy ...string) board.ImportRow {
	return board.ImportRow{NewTicket: board.NewTicket{Title: title}, Key: key, Parent: parent, BlockedBy: blockedBy}
}

func testImportPlan(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	epic := r.ticket(t, "inbox", "Parser epic")
	spec := r.ticket(t, "inbox", "Agree the grammar")
	in := board.ImportTicketsInput{RequestID: "plan-1", Workspace: "inbox", Tickets: []board.ImportRow{
		row("Write the lexer", "lexer", epic, spec),
		row("Write the parser", "parser", epic, "lexer"),
		row("Parse errors", "", "parser"),
		row("Ship it", "ship", "", "parser", "lexer"),
	}}
	res, err := r.svc.ImportTickets(agentCtx(f, "planner"), in)
	if err != nil || res.Status != board.TaskCompleted || res.Imported != 4 || res.Replayed {
		t.Fatalf("plan import: %+v %v", res, err)
	}
	if len(res.Keys) != 3 || res.Keys["lexer"] == "" || res.Keys["parser"] == "" || res.Keys["ship"] == "" {
		t.Fatalf("keys %v: want lexer, parser and ship", res.Keys)
	}
	lexer, parser, ship := res.Keys["lexer"], res.Keys["parser"], res.Keys["ship"]
	dl := r.get(t, lexer)
	if dl.Parent == nil || dl.Parent.ID != epic || !slices.Equal(relatedIDs(dl.BlockedBy), []string{spec}) || dl.Ready {
		t.Errorf("%s parent %+v blocked_by %v ready %v, want %s, %s, not ready", lexer, dl.Parent, relatedIDs(dl.BlockedBy), dl.Ready, epic, spec)
	}
	dp := r.get(t, parser)
	if dp.Parent == nil || dp.Parent.ID != epic || !slices.Equal(relatedIDs(dp.BlockedBy), []string{lexer}) || dp.Children.Total != 1 {
		t.Errorf("%s parent %+v blocked_by %v children %+v", parser, dp.Parent, relatedIDs(dp.BlockedBy), dp.Children)
	}
	errs := dp.Children.Tickets[0].ID
	if got := relatedIDs(r.get(t, ship).BlockedBy); len(got) != 2 || !slices.Contains(got, lexer) || !slices.Contains(got, parser) {
		t.Errorf("%s blocked_by %v, want %s and %s", ship, got, lexer, parser)
	}
	if got := relatedIDs(r.get(t, epic).Children.Tickets); !slices.Equal(got, []string{lexer, parser}) {
		t.Errorf("%s children %v, want %s, %s", epic, got, lexer, parser)
	}
	// A replay answers the first answer and writes nothing again.
	histories := map[string]int{}
	for _, id := range []string{epic, spec, lexer, parser, errs, ship} {
		histories[id] = len(r.get(t, id).History)
	}
	count := len(r.list(t, board.ListTicketsInput{Limit: 100}))
	again, err := r.svc.ImportTickets(agentCtx(f, "planner"), in)
	if err != nil || !again.Replayed || again.TaskID != res.TaskID || fmt.Sprint(again.Keys) != fmt.Sprint(res.Keys) {
		t.Fatalf("replay %+v %v: want the first answer, replayed", again, err)
	}
	for id, n := range histories {
		if got := len(r.get(t, id).History); got != n {
			t.Errorf("%s history %d after the replay, was %d", id, got, n)
		}
	}
	if got := len(r.list(t, board.ListTicketsInput{Limit: 100})); got != count {
		t.Errorf("%d tickets after the replay, were %d", got, count)
	}
}

func testImportPlanRefused(t *testing.T, f *fixture) {
	r := newRelationRig(t, f)
	// An existing chain three deep: two more levels of rows fit under it.
	chain := []string{r.ticket(t, "inbox", "level 1")}
	for i := 2; i <= 3; i++ {
		next := r.ticket(t, "inbox", fmt.Sprintf("level %d", i))
		r.relate(t, chain[len(chain)-1], board.RelationParent, next)
		chain = append(chain, next)
	}
	deep := chain[len(chain)-1]
	other := r.ticket(t, "reference", "elsewhere")
	many := make([]string, board.MaxRelations+1)
	manyRows := []board.ImportRow{}
	for i := range many {
		many[i] = fmt.Sprintf("k%d", i)
		manyRows = append(manyRows, row(many[i], many[i], ""))
	}
	nest := []board.ImportRow{row("1", "n1", "")}
	for i := 2; i <= board.MaxNesting+1; i++ {
		nest = append(nest, row(fmt.Sprint(i), fmt.Sprintf("n%d", i), fmt.Sprintf("n%d", i-1)))
	}
	cases := []struct {
		name  string
		rows  []board.ImportRow
		words []string
	}{
		{"an unknown key", []board.ImportRow{row("a", "a", ""), row("b", "", "nope")}, []string{"tickets[1].parent", "neither the key"}},
		{"a duplicate key", []board.ImportRow{row("a", "a", ""), row("b", "a", "")}, []string{"tickets[1].key", "also the key of tickets[0]"}},
		{"a key shaped like an id", []board.ImportRow{row("a", "inbox-9999", "")}, []string{"tickets[0].key", "ambiguous"}},
		{"a row blocked by itself", []board.ImportRow{row("a", "a", "", "a")}, []string{"tickets[0].blocked_by", "cycle"}},
		{"rows blocking each other", []board.ImportRow{row("a", "a", "", "c"), row("b", "b", "", "a"), row("c", "c", "", "b")}, []string{"cycle", "tickets[0]"}},
		{"rows parenting each other", []board.ImportRow{row("a", "a", "b"), row("b", "b", "a")}, []string{"cycle"}},
		{"rows nesting too deep", nest, []string{"tickets[5]", "at most 5"}},
		{"rows nesting too deep under an existing ticket", []board.ImportRow{row("a", "a", deep), row("b", "b", "a"), row("c", "", "b")}, []string{"tickets[2]", "6 levels", deep}},
		{"too many blockers", append(slices.Clone(manyRows), row("x", "", "", many...)), []string{"tickets[51].blocked_by", "at most 50"}},
		{"a blocker listed twice", []board.ImportRow{row("a", "a", ""), row("b", "", "", "a", "a")}, []string{"twice"}},
		{"a ticket of another workspace", []board.ImportRow{row("a", "", other)}, []string{"tickets[0].parent", "inside one workspace", "reference"}},
		{"a ticket that does not exist", []board.ImportRow{row("a", "", "", "inbox-9999")}, []string{"tickets[0].blocked_by", "inbox-9999"}},
	}
	before := len(r.list(t, board.ListTicketsInput{Limit: 100}))
	for i, c := range cases {
		_, err := r.svc.ImportTickets(agentCtx(f, "planner"), board.ImportTicketsInput{RequestID: fmt.Sprintf("bad-%d", i), Workspace: "inbox", Tickets: c.rows})
		wantCode(t, c.name, err, board.CodeInvalid, c.words...)
	}
	if got := len(r.list(t, board.ListTicketsInput{Limit: 100})); got != before {
		t.Errorf("%d tickets after refused imports, were %d", got, before)
	}
	if d := r.get(t, deep); d.Children.Total != 0 {
		t.Errorf("%s got sub-tickets from a refused import: %+v", deep, d.Children)
	}
	// Two levels under the chain fit exactly.
	res, err := r.svc.ImportTickets(agentCtx(f, "planner"), board.ImportTicketsInput{RequestID: "fits", Workspace: "inbox", Tickets: []board.ImportRow{row("a", "a", deep), row("b", "b", "a")}})
	if err != nil || res.Status != board.TaskCompleted || r.get(t, res.Keys["b"]).Parent.ID != res.Keys["a"] {
		t.Fatalf("an import nesting exactly 5 deep: %+v %v", res, err)
	}
}
