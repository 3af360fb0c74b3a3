package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Inbox (board/inbox.go): mentions and inbox items, written with their
// event, read and marked the same way on every store, through a Service.

func inboxTests() []contractTest {
	return []contractTest{
		{"a note mentions known people once; unknown names and code stay text", testInboxMentions},
		{"owners, creators and waiting tickets reach the right inboxes, never the writer's", testInboxReasons},
		{"an agent's inbox is its person's agent's: mentions and tickets it owns, nothing hidden", testInboxAgents},
		{"pages follow the cursor newest first; unread only; mark one and mark all", testInboxPages},
		{"the unread count stops at the cap and shows 99+", testInboxCountCap},
		{"a replayed write adds no item; a replayed mark answers the first answer", testInboxExactlyOnce},
		{"the widest writes commit: a waiting ticket of no one's reaches the first people up to the bound", testInboxWidest},
		{"a blocker reopened for a person blocks its dependents again however many people it tells", testInboxBesideDependents},
	}
}

// inboxRig is a Service over the fixture's store, with people.
type inboxRig struct {
	f   *fixture
	svc *board.Service
}

func newInboxRig(t *testing.T, f *fixture, people ...string) *inboxRig {
	for _, h := range people {
		f.createPerson(board.Person{Handle: h, Name: h, Role: board.RoleMember, CreatedAt: T0}, nil)
	}
	svc, err := board.NewService(board.Config{Store: f.s, BaseURL: "https://board.test", Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return &inboxRig{f: f, svc: svc}
}

func onBehalf(f *fixture, agent, person string) context.Context {
	return board.WithPrincipal(f.ctx, board.Principal{Author: "ai:" + agent, OnBehalfOf: "human:" + person, Source: board.SourceMCP})
}

func (r *inboxRig) create(t *testing.T, ctx context.Context, workspace string, f board.NewTicket) board.Ticket {
	t.Helper()
	res, err := r.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: r.f.id("c"), Workspace: workspace, NewTicket: f})
	if err != nil {
		t.Fatalf("create %q: %v", f.Title, err)
	}
	return res.Ticket
}

func (r *inboxRig) note(t *testing.T, ctx context.Context, id, body string) board.NoteResult {
	t.Helper()
	res, err := r.svc.AddNote(ctx, board.AddNoteInput{RequestID: r.f.id("n"), ID: id, Body: body})
	if err != nil {
		t.Fatalf("note on %s: %v", id, err)
	}
	return res
}

func (r *inboxRig) move(t *testing.T, ctx context.Context, id string, to board.Status, reason string) {
	t.Helper()
	if _, err := r.svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: r.f.id("m"), ID: id, Status: to, Reason: reason}); err != nil {
		t.Fatalf("move %s: %v", id, err)
	}
}

func (r *inboxRig) inbox(t *testing.T, ctx context.Context, in board.ListInboxInput) board.InboxList {
	t.Helper()
	l, err := r.svc.ListInbox(ctx, in)
	if err != nil {
		t.Fatalf("list_inbox: %v", err)
	}
	return l
}

// reasons lists an inbox as "reason ticket" lines, newest first.
func (r *inboxRig) reasons(t *testing.T, ctx context.Context) []string {
	t.Helper()
	var out []string
	for _, it := range r.inbox(t, ctx, board.ListInboxInput{Limit: board.MaxLimit}).Items {
		out = append(out, it.Reason+" "+it.TicketID+" "+it.EventType)
	}
	return out
}

func wantLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func testInboxMentions(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob", "carol")
	tk := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Plan"})
	n := r.note(t, onBehalf(f, "claude", "alice"), tk.ID, "@bob and @carol, also @bob again; @ghost and `@alice` and bob@example.com")
	if n.Note.OnBehalfOf != "human:alice" {
		t.Errorf("note on_behalf_of %q, want human:alice", n.Note.OnBehalfOf)
	}
	d := r.get(t, tk.ID)
	if got := d.Notes[0].OnBehalfOf; got != "human:alice" {
		t.Errorf("stored note on_behalf_of %q, want human:alice", got)
	}
	ev := d.History[len(d.History)-1]
	wantLines(t, "the note event's mentions", ev.Mentions, "human:bob", "human:carol")
	wantLines(t, "bob's inbox", r.reasons(t, personCtx(f, "bob")), "mention "+tk.ID+" note.added")
	wantLines(t, "carol's inbox", r.reasons(t, personCtx(f, "carol")), "mention "+tk.ID+" note.added")
	// alice created the ticket: her agent's note is activity on it.
	wantLines(t, "alice's inbox", r.reasons(t, personCtx(f, "alice")), "activity "+tk.ID+" note.added")
	it := r.inbox(t, personCtx(f, "bob"), board.ListInboxInput{}).Items[0]
	if it.Author != "ai:claude" || it.OnBehalfOf != "human:alice" || it.Title != "Plan" || it.Read || it.ID != ev.ID {
		t.Errorf("bob's item %+v, want the event %s by ai:claude for human:alice, unread", it, ev.ID)
	}
	// A body mentions once: an update that keeps @bob tells bob nothing new.
	body := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Body", Body: "for @carol"})
	newBody := "for @carol and @bob"
	if _, err := r.svc.UpdateTicket(personCtx(f, "alice"), board.UpdateTicketInput{RequestID: f.id("u"), ID: body.ID, Body: &newBody}); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "bob's inbox after the update", r.reasons(t, personCtx(f, "bob")),
		"mention "+body.ID+" ticket.updated", "mention "+tk.ID+" note.added")
	wantLines(t, "carol's inbox after the update", r.reasons(t, personCtx(f, "carol")),
		"mention "+body.ID+" ticket.created", "mention "+tk.ID+" note.added")
}

func (r *inboxRig) get(t *testing.T, id string) board.TicketDetail {
	t.Helper()
	d, err := r.svc.GetTicket(personCtx(r.f, "alice"), board.TicketIDInput{ID: id})
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return d
}

func testInboxReasons(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob", "carol")
	bob := "human:bob"
	owned := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Owned", Owner: bob})
	r.move(t, personCtx(f, "carol"), owned.ID, board.StatusWaitingHuman, "need a decision")
	wantLines(t, "bob: assigned, then waiting on his ticket", r.reasons(t, personCtx(f, "bob")),
		"waiting "+owned.ID+" ticket.moved", "assigned "+owned.ID+" ticket.created")
	wantLines(t, "alice: the move on the ticket she created", r.reasons(t, personCtx(f, "alice")),
		"activity "+owned.ID+" ticket.moved")
	wantLines(t, "carol: nothing of her own move", r.reasons(t, personCtx(f, "carol")))

	free := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "No one's"})
	r.move(t, onBehalf(f, "claude", "alice"), free.ID, board.StatusWaitingHuman, "")
	for _, who := range []string{"bob", "carol"} {
		got := r.reasons(t, personCtx(f, who))
		if len(got) == 0 || got[0] != "waiting "+free.ID+" ticket.moved" {
			t.Errorf("%s's inbox %q: want the waiting ticket of no one's first", who, got)
		}
	}
	// alice's agent wrote it, for her: she is told (the writer is the agent).
	if got := r.reasons(t, personCtx(f, "alice")); got[0] != "waiting "+free.ID+" ticket.moved" {
		t.Errorf("alice's inbox %q: want the waiting ticket first", got)
	}
}

func testInboxAgents(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob")
	tk := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Hand over"})
	r.note(t, personCtx(f, "alice"), tk.ID, "@ai:claude please take this")
	hidden := r.create(t, personCtx(f, "alice"), "private", board.NewTicket{Title: "Secret"})
	r.note(t, personCtx(f, "alice"), hidden.ID, "@ai:claude not for you")
	claude := "ai:claude"
	mine := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Yours", Owner: claude})

	wantLines(t, "alice's claude", r.reasons(t, onBehalf(f, "claude", "alice")),
		"assigned "+mine.ID+" ticket.created", "mention "+tk.ID+" note.added")
	wantLines(t, "bob's claude", r.reasons(t, onBehalf(f, "claude", "bob")))
	// The hidden item is stored, and shown to no agent: the count may
	// include it (it is counted without reading policies).
	l := r.inbox(t, onBehalf(f, "claude", "alice"), board.ListInboxInput{})
	for _, it := range l.Items {
		if it.Workspace == "private" {
			t.Errorf("an agent sees an item of a hidden workspace: %+v", it)
		}
	}
}

func testInboxPages(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob")
	tk := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Chatty"})
	var ids []string
	for i := range 25 {
		ids = append(ids, r.note(t, personCtx(f, "alice"), tk.ID, fmt.Sprintf("@bob number %d", i)).Note.ID)
	}
	bob := personCtx(f, "bob")
	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		l := r.inbox(t, bob, board.ListInboxInput{Cursor: cursor, Limit: 10})
		for _, it := range l.Items {
			seen = append(seen, it.ID)
		}
		if l.NextCursor == nil {
			if pages != 2 {
				t.Errorf("%d pages, want 3", pages+1)
			}
			break
		}
		cursor = *l.NextCursor
	}
	if len(seen) != 25 || !slices.IsSortedFunc(seen, func(a, b string) int { return -cmpStrings(a, b) }) {
		t.Fatalf("pages gave %d items (%q), want 25 newest first", len(seen), seen)
	}
	l := r.inbox(t, bob, board.ListInboxInput{Limit: 1})
	if l.Unread != 25 || l.UnreadLabel != "25" {
		t.Errorf("unread %d %q, want 25", l.Unread, l.UnreadLabel)
	}
	one := seen[3]
	res, err := r.svc.MarkInboxRead(bob, board.MarkInboxReadInput{RequestID: f.id("r"), IDs: []string{one, one}})
	if err != nil || res.Marked != 1 || res.Unread != 24 {
		t.Fatalf("mark one: %+v %v, want 1 marked, 24 unread", res, err)
	}
	unread := r.inbox(t, bob, board.ListInboxInput{UnreadOnly: true, Limit: board.MaxLimit})
	if len(unread.Items) != 24 || slices.ContainsFunc(unread.Items, func(it board.InboxItem) bool { return it.ID == one }) {
		t.Errorf("unread only: %d items, want 24 without the one marked", len(unread.Items))
	}
	all := r.inbox(t, bob, board.ListInboxInput{Limit: board.MaxLimit})
	for _, it := range all.Items {
		if it.Read != (it.ID == one) {
			t.Errorf("item %s read=%v", it.ID, it.Read)
		}
	}
	// Paging the unread items with a cursor skips none.
	first := r.inbox(t, bob, board.ListInboxInput{UnreadOnly: true, Limit: 20})
	rest := r.inbox(t, bob, board.ListInboxInput{UnreadOnly: true, Limit: 20, Cursor: *first.NextCursor})
	if len(first.Items)+len(rest.Items) != 24 || rest.NextCursor != nil {
		t.Errorf("unread pages %d + %d, want 24 in two", len(first.Items), len(rest.Items))
	}
	res, err = r.svc.MarkInboxRead(bob, board.MarkInboxReadInput{RequestID: f.id("r"), All: true})
	if err != nil || res.Marked != 24 || res.Unread != 0 || res.UnreadLabel != "0" {
		t.Fatalf("mark all: %+v %v, want 24 marked, none left", res, err)
	}
	if l := r.inbox(t, bob, board.ListInboxInput{UnreadOnly: true}); len(l.Items) != 0 || l.NextCursor != nil {
		t.Errorf("unread only after mark all: %+v", l)
	}
	// Another's inbox is untouched, and marking names only one's own.
	res, err = r.svc.MarkInboxRead(personCtx(f, "alice"), board.MarkInboxReadInput{RequestID: f.id("r"), IDs: []string{seen[0]}})
	if err != nil || res.Marked != 0 {
		t.Errorf("alice marking bob's item: %+v %v, want nothing marked", res, err)
	}
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func testInboxCountCap(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob")
	tk := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Busy"})
	for i := range board.UnreadCountCap + 3 {
		r.note(t, personCtx(f, "alice"), tk.ID, fmt.Sprintf("@bob %d", i))
	}
	l := r.inbox(t, personCtx(f, "bob"), board.ListInboxInput{Limit: 5})
	if l.Unread != board.UnreadCountCap || l.UnreadLabel != "99+" {
		t.Errorf("unread %d %q, want %d shown as 99+", l.Unread, l.UnreadLabel, board.UnreadCountCap)
	}
}

func testInboxExactlyOnce(t *testing.T, f *fixture) {
	r := newInboxRig(t, f, "alice", "bob")
	tk := r.create(t, personCtx(f, "alice"), "inbox", board.NewTicket{Title: "Once"})
	in := board.AddNoteInput{RequestID: "note-once", ID: tk.ID, Body: "@bob look"}
	for range 2 {
		if _, err := r.svc.AddNote(personCtx(f, "alice"), in); err != nil {
			t.Fatal(err)
		}
	}
	bob := personCtx(f, "bob")
	if l := r.inbox(t, bob, board.ListInboxInput{}); len(l.Items) != 1 {
		t.Fatalf("bob has %d items after a note and its replay, want 1", len(l.Items))
	}
	mark := board.MarkInboxReadInput{RequestID: "mark-once", All: true}
	first, err := r.svc.MarkInboxRead(bob, mark)
	if err != nil || first.Marked != 1 {
		t.Fatalf("mark all: %+v %v", first, err)
	}
	again, err := r.svc.MarkInboxRead(bob, mark)
	if err != nil || !again.Replayed || again.Marked != 1 || again.Unread != first.Unread {
		t.Errorf("replayed mark: %+v %v, want the first answer (marked 1), replayed", again, err)
	}
	_, err = r.svc.MarkInboxRead(bob, board.MarkInboxReadInput{RequestID: "mark-once", IDs: []string{tk.ID}})
	if err == nil {
		t.Error("the same request_id with other arguments was accepted")
	}
	_, err = r.svc.MarkInboxRead(bob, board.MarkInboxReadInput{RequestID: "bad", All: true, IDs: []string{"x"}})
	wantCode(t, "ids and all", err, board.CodeInvalid, "not both")
}

func testInboxWidest(t *testing.T, f *fixture) {
	var people []string
	for i := range board.MaxInboxRecipients + 5 {
		people = append(people, fmt.Sprintf("p%02d", i))
	}
	r := newInboxRig(t, f, people...)
	tk := r.create(t, personCtx(f, "p00"), "inbox", board.NewTicket{Title: "Anyone?"})
	r.move(t, onBehalf(f, "claude", "p00"), tk.ID, board.StatusWaitingHuman, "")
	told := 0
	for _, p := range people {
		if len(r.inbox(t, personCtx(f, p), board.ListInboxInput{}).Items) == 1 {
			told++
		}
	}
	if told != board.MaxInboxRecipients {
		t.Errorf("%d people were told, want the bound %d", told, board.MaxInboxRecipients)
	}
	// An update with the most tags changed and the most mentions commits.
	var tags, other []string
	for i := range board.MaxTags {
		tags, other = append(tags, fmt.Sprint("a", i)), append(other, fmt.Sprint("b", i))
	}
	wide := r.create(t, personCtx(f, "p00"), "inbox", board.NewTicket{Title: "Wide", Tags: tags})
	var body strings.Builder
	for _, p := range people {
		fmt.Fprintf(&body, "@%s ", p)
	}
	text := body.String()
	owner := "human:p29"
	if _, err := r.svc.UpdateTicket(personCtx(f, "p00"), board.UpdateTicketInput{RequestID: f.id("u"), ID: wide.ID,
		Body: &text, Tags: &other, Owner: board.Nullable{Set: true, Value: &owner}}); err != nil {
		t.Fatalf("the widest update: %v", err)
	}
	if got := r.reasons(t, personCtx(f, "p29")); len(got) == 0 || got[0] != "assigned "+wide.ID+" ticket.updated" {
		t.Errorf("the new owner's inbox %q", got)
	}
}

// testInboxBesideDependents: reopening a blocker changes every ticket it
// blocks in the move's own write, and waiting for a person tells everyone
// who may answer; both at their bounds, the move still commits whole. A
// store whose write cannot hold both may tell fewer people (never none),
// never leave a dependent ready.
func testInboxBesideDependents(t *testing.T, f *fixture) {
	var people []string
	for i := range board.MaxInboxRecipients + 5 {
		people = append(people, fmt.Sprintf("p%02d", i))
	}
	r := newInboxRig(t, f, people...)
	blocker := r.create(t, personCtx(f, "p00"), "inbox", board.NewTicket{Title: "Groundwork"})
	var deps []string
	for i := range board.MaxRelations {
		d := r.create(t, personCtx(f, "p00"), "inbox", board.NewTicket{Title: fmt.Sprintf("Step %d", i)})
		if _, err := r.svc.RelateTickets(personCtx(f, "p00"), board.RelateInput{RequestID: f.id("rel"), ID: blocker.ID, Kind: board.RelationBlocks, Other: d.ID}); err != nil {
			t.Fatalf("relate %s: %v", d.ID, err)
		}
		deps = append(deps, d.ID)
	}
	r.move(t, personCtx(f, "p00"), blocker.ID, board.StatusDone, "")
	r.move(t, onBehalf(f, "claude", "p00"), blocker.ID, board.StatusWaitingHuman, "reopened: the groundwork was wrong")
	for _, id := range []string{deps[0], deps[len(deps)-1]} {
		d, err := r.svc.GetTicket(personCtx(f, "p00"), board.TicketIDInput{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if d.Ready {
			t.Errorf("%s is ready while its blocker waits for a person", id)
		}
	}
	told := 0
	for _, p := range people {
		for _, it := range r.inbox(t, personCtx(f, p), board.ListInboxInput{}).Items {
			if it.TicketID == blocker.ID && it.EventType == board.EventTicketMoved {
				told++
				break
			}
		}
	}
	if told == 0 || told > board.MaxInboxRecipients {
		t.Errorf("%d people were told of the reopened blocker, want 1 to %d", told, board.MaxInboxRecipients)
	}
}
