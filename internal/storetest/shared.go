package storetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Instances opens one more store instance on a shared backend (one SQLite
// file, one DynamoDB table). Each instance stands for another process: it
// shares nothing in memory with the others (no lock, no cache), so the
// races below reach the backend itself.
type Instances func(t *testing.T) Store

// RunShared checks what shows only with many writers through the use cases
// (board.Service): contention on one ticket, within one instance and across
// instances, and creates racing across instances. newBackend is called once
// per subtest; it prepares a fresh backend and returns how to open
// instances on it. Subtests run in parallel.
func RunShared(t *testing.T, newBackend func(t *testing.T) Instances) {
	t.Helper()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, open Instances)
	}{
		{"16 writers on one ticket, one instance: no call fails, no update lost", func(t *testing.T, open Instances) {
			testContention(t, open, 1)
		}},
		{"16 writers on one ticket across 4 instances: no call fails, no update lost", func(t *testing.T, open Instances) {
			testContention(t, open, 4)
		}},
		{"50 identical creates across 5 instances: one ticket, 49 replays", testCreatesOneKeyAcrossInstances},
		{"50 distinct creates across 5 instances: 50 tickets, distinct numbers", testCreatesAcrossInstances},
		{"40 client registrations across 4 instances, limit 10: exactly 10 counted", testRegistrationsAcrossInstances},
		{"32 get-or-creates of one secret across 4 instances: one secret", testSecretAcrossInstances},
		{"a cursor one instance hands out is taken by another", testCursorAcrossInstances},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newBackend(t))
		})
	}
}

// racer is the AI principal of the shared tests.
var racer = board.Principal{Author: "ai:racer", Source: board.SourceMCP}

func racerCtx(t *testing.T) context.Context { return board.WithPrincipal(t.Context(), racer) }

// services opens n instances with a Service each.
func services(t *testing.T, open Instances, n int) []*board.Service {
	t.Helper()
	out := make([]*board.Service, n)
	for i := range out {
		svc, err := board.NewService(board.Config{Store: open(t), BaseURL: "https://board.test", Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = svc
	}
	return out
}

// testContention: 16 writers hammer one ticket with 4 calls each (notes and
// title updates, each a change) through `instances` services. Every call
// must succeed, and every one must be in the ticket: 32 notes, 32 updates,
// 64 events after the creation, the version moved once per call (1 to 65,
// no two calls on the same version), every request findable.
func testContention(t *testing.T, open Instances, instances int) {
	const writers, calls = 16, 4
	svcs := services(t, open, instances)
	ctx := racerCtx(t)
	created, err := svcs[0].CreateTicket(ctx, board.CreateTicketInput{RequestID: "contended", Workspace: "inbox", NewTicket: board.NewTicket{Title: "contended"}})
	if err != nil {
		t.Fatal(err)
	}
	id := created.Ticket.ID

	var mu sync.Mutex
	var failures []string
	updateVersions := map[int64]string{}
	Together(writers, func(w int) {
		svc := svcs[w%instances]
		for k := range calls {
			rid := fmt.Sprintf("w%02d-%d", w, k)
			var err error
			if k%2 == 0 {
				_, err = svc.AddNote(ctx, board.AddNoteInput{RequestID: rid, ID: id, Body: "note " + rid})
			} else {
				title := "title " + rid
				var res board.TicketResult
				res, err = svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: rid, ID: id, Title: &title})
				if err == nil {
					mu.Lock()
					if other, dup := updateVersions[res.Ticket.Version]; dup {
						failures = append(failures, fmt.Sprintf("%s and %s both answered version %d", other, rid, res.Ticket.Version))
					}
					updateVersions[res.Ticket.Version] = rid
					mu.Unlock()
				}
			}
			if err != nil {
				mu.Lock()
				failures = append(failures, rid+": "+err.Error())
				mu.Unlock()
			}
		}
	})
	if len(failures) > 0 {
		t.Fatalf("%d of %d calls failed or collided; first: %s", len(failures), writers*calls, failures[0])
	}

	d, err := svcs[0].GetTicket(ctx, board.TicketIDInput{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1 + writers*calls); d.Ticket.Version != want {
		t.Errorf("version after %d changes: %d, want %d", writers*calls, d.Ticket.Version, want)
	}
	d.Notes, d.History = allActivity(t, ctx, svcs[0], id)
	var wantNotes, gotNotes []string
	for w := range writers {
		for k := 0; k < calls; k += 2 {
			wantNotes = append(wantNotes, fmt.Sprintf("note w%02d-%d", w, k))
		}
	}
	for _, n := range d.Notes {
		gotNotes = append(gotNotes, n.Body)
	}
	sort.Strings(gotNotes)
	if !slices.Equal(gotNotes, wantNotes) {
		t.Errorf("notes: %d stored, want the %d written (lost or doubled: %v)", len(gotNotes), len(wantNotes), symmetricDiff(wantNotes, gotNotes))
	}
	byType := map[string]int{}
	for _, ev := range d.History {
		byType[ev.Type]++
	}
	if byType[board.EventTicketUpdated] != writers*calls/2 || byType[board.EventNoteAdded] != writers*calls/2 || len(d.History) != 1+writers*calls {
		t.Errorf("history: %v in %d events, want %d updates and %d notes after the creation", byType, len(d.History), writers*calls/2, writers*calls/2)
	}
	for w := range writers {
		for k := range calls {
			rid := fmt.Sprintf("w%02d-%d", w, k)
			found, err := svcs[(w+1)%instances].FindRequest(ctx, board.FindRequestInput{RequestID: rid})
			if err != nil || found.Status != "done" {
				t.Errorf("find_request %s: %+v %v, want done", rid, found, err)
			}
		}
	}
}

// symmetricDiff lists what is in one sorted list and not the other.
func symmetricDiff(a, b []string) string {
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	var out []string
	for x, n := range seen {
		if n != 0 {
			out = append(out, fmt.Sprintf("%s(%+d)", x, -n))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func testCreatesOneKeyAcrossInstances(t *testing.T, open Instances) {
	const instances, n = 5, 50
	svcs := services(t, open, instances)
	ctx := racerCtx(t)
	in := board.CreateTicketInput{RequestID: "same-intent", Workspace: "inbox", NewTicket: board.NewTicket{Title: "one ticket, please", Tags: []string{"race"}}}
	results := make([]board.TicketResult, n)
	errs := make([]error, n)
	Together(n, func(i int) { results[i], errs[i] = svcs[i%instances].CreateTicket(ctx, in) })
	first := 0
	// Which instance's create wins decides the number (a store may
	// number each instance's creates from its own block): every call
	// names that one ticket.
	id := ""
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if id == "" {
			id = results[i].Ticket.ID
		}
		if results[i].Ticket.ID != id {
			t.Errorf("call %d got %s, call 0 %s: want one ticket", i, results[i].Ticket.ID, id)
		}
		if !results[i].Replayed {
			first++
		}
	}
	if first != 1 {
		t.Errorf("%d calls were told they created the ticket, want exactly 1 (the others replayed)", first)
	}
	list, err := svcs[instances-1].ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: board.MaxLimit})
	if err != nil || len(list.Tickets) != 1 || list.Tickets[0].ID != id {
		t.Errorf("tickets after the race: %+v %v, want exactly %s", list.Tickets, err, id)
	}
	sum, err := svcs[1].GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: "inbox"})
	if err != nil || sum.Counts[board.StatusCandidate] != 1 {
		t.Errorf("candidate count after the race: %v %v, want 1", sum.Counts, err)
	}
}

func testCreatesAcrossInstances(t *testing.T, open Instances) {
	const instances, n = 5, 50
	svcs := services(t, open, instances)
	ctx := racerCtx(t)
	results := make([]board.TicketResult, n)
	errs := make([]error, n)
	Together(n, func(i int) {
		in := board.CreateTicketInput{RequestID: fmt.Sprintf("intent-%02d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: "racer"}}
		results[i], errs[i] = svcs[i%instances].CreateTicket(ctx, in)
	})
	seen := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if results[i].Replayed {
			t.Errorf("call %d (its own request_id) was answered as a replay", i)
		}
		if seen[results[i].Ticket.ID] {
			t.Errorf("two calls got %s", results[i].Ticket.ID)
		}
		seen[results[i].Ticket.ID] = true
	}
	// Distinct numbers are the contract; a store may skip numbers across
	// instances (each numbering from a block of its own), so no gap-free
	// range is asked for here. One instance's creates have no gaps
	// (tickets.go).
	list, err := svcs[0].ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Limit: board.MaxLimit})
	if err != nil || len(list.Tickets) != n {
		t.Errorf("%d tickets listed (%v), want %d", len(list.Tickets), err, n)
	}
	sum, err := svcs[2].GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: "inbox"})
	if err != nil || sum.Counts[board.StatusCandidate] != n {
		t.Errorf("candidate count: %v %v, want %d", sum.Counts, err, n)
	}
}

// allActivity reads every note and event of a ticket, oldest first, through
// the pages get_ticket points to.
func allActivity(t *testing.T, ctx context.Context, svc *board.Service, id string) ([]board.Note, []board.Event) {
	t.Helper()
	var notes []board.Note
	var events []board.Event
	for in := (board.TicketActivityInput{ID: id, Limit: board.MaxLimit}); ; {
		page, err := svc.ListTicketNotes(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		notes = append(page.Notes, notes...)
		if page.NextCursor == nil {
			break
		}
		in.Cursor = *page.NextCursor
	}
	for in := (board.TicketActivityInput{ID: id, Limit: board.MaxLimit}); ; {
		page, err := svc.ListTicketHistory(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		events = append(page.History, events...)
		if page.NextCursor == nil {
			break
		}
		in.Cursor = *page.NextCursor
	}
	return notes, events
}

// testRegistrationsAcrossInstances: the store-wide registration cap holds
// when the counts come from different processes at once.
func testRegistrationsAcrossInstances(t *testing.T, open Instances) {
	stores := make([]Store, 4)
	for i := range stores {
		stores[i] = open(t)
	}
	window := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	const limit = 10
	var mu sync.Mutex
	counted := 0
	Together(40, func(i int) {
		ok, err := stores[i%len(stores)].CountOAuthRegistration(t.Context(), window, window.Add(time.Hour), limit)
		if err != nil {
			t.Errorf("count %d: %v", i, err)
		}
		if ok {
			mu.Lock()
			counted++
			mu.Unlock()
		}
	})
	if counted != limit {
		t.Fatalf("%d registrations counted across instances, want exactly %d", counted, limit)
	}
}
