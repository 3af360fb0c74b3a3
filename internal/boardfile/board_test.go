package boardfile_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// t0 is the tests' clock start; every write moves the clock, so times
// differ and order the history.
var t0 = time.Date(2026, 11, 30, 9, 0, 0, 123_000_000, time.UTC)

// mover is what both stores are for a move.
type mover interface {
	storetest.Store
	boardfile.Source
	boardfile.Target
}

// fixture is a board on one backend with a service and a clock.
type fixture struct {
	be    *testbackends.Backend
	store mover
	svc   *board.Service
	clock *testbackends.Clock
}

func open(t *testing.T, backend string, clock *testbackends.Clock) *fixture {
	t.Helper()
	be := testbackends.Open(t, backend)
	st, ok := be.Store.(mover)
	if !ok {
		t.Fatalf("%s store does not implement the board move", backend)
	}
	svc, err := board.NewService(board.Config{Store: st, Now: clock.Now, Retention: 24 * time.Hour, BaseURL: "http://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{be: be, store: st, svc: svc, clock: clock}
}

func (f *fixture) as(author, onBehalfOf string, role board.Role) context.Context {
	f.clock.Add(time.Second + time.Millisecond)
	return board.WithPrincipal(context.Background(), board.Principal{Author: author, OnBehalfOf: onBehalfOf, Role: role, Source: board.SourceMCP})
}

// createInput is the create every replay test retries.
func createInput(i int) board.CreateTicketInput {
	return board.CreateTicketInput{
		RequestID: fmt.Sprintf("create-%d", i),
		Workspace: "ops",
		NewTicket: board.NewTicket{
			Title:    fmt.Sprintf("Ticket <%d> & more", i),
			Body:     "body with \"quotes\", <html> & unicode ✓",
			Priority: board.PriorityHigh,
			Owner:    "ai:alice",
			Due:      "2026-12-24",
			Tags:     []string{"move", fmt.Sprintf("t%d", i%3)},
			Links:    []board.Link{{Kind: "url", Ref: "https://example.test/x?a=1&b=2", Title: "x"}},
		},
	}
}

// grow writes a board with every kind of item through the service: a new
// workspace and a changed policy, tickets with every field, updates,
// moves (done, with completed_at), notes by agents on behalf of people,
// and people with tokens.
func grow(t *testing.T, f *fixture, n int) {
	t.Helper()
	admin := func() context.Context { return f.as("human:ada", "", board.RoleAdmin) }
	agent := func() context.Context { return f.as("ai:alice", "human:ada", "") }
	if _, err := f.svc.CreateWorkspace(admin(), board.CreateWorkspaceInput{RequestID: "ws-ops", Slug: "ops", Name: "Operations"}); err != nil {
		t.Fatal(err)
	}
	policy := board.PolicyReadOnly
	if _, err := f.svc.UpdateWorkspace(admin(), board.UpdateWorkspaceInput{RequestID: "ws-ref", Workspace: "reference", AIPolicy: &policy}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		res, err := f.svc.CreateTicket(agent(), createInput(i))
		if err != nil {
			t.Fatal(err)
		}
		id := res.Ticket.ID
		if i%2 == 0 {
			title := fmt.Sprintf("Renamed %d", i)
			if _, err := f.svc.UpdateTicket(admin(), board.UpdateTicketInput{RequestID: fmt.Sprintf("upd-%d", i), ID: id, Title: &title}); err != nil {
				t.Fatal(err)
			}
		}
		if i%3 == 0 {
			if _, err := f.svc.MoveTicket(agent(), board.MoveTicketInput{RequestID: fmt.Sprintf("mv-%d", i), ID: id, Status: board.StatusDone, Reason: "finished"}); err != nil {
				t.Fatal(err)
			}
		}
		if i%2 == 1 {
			if _, err := f.svc.AddNote(agent(), board.AddNoteInput{RequestID: fmt.Sprintf("note-%d", i), ID: id, Body: "a note <b>"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	correctNotes(t, f, n)
	if _, err := f.svc.CreateTicket(admin(), board.CreateTicketInput{RequestID: "inbox-1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "In the inbox"}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []board.Person{
		{Handle: "ada", Name: "Ada", Role: board.RoleAdmin, PasswordHash: "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", CreatedAt: t0, CredentialsNotBefore: t0.Add(time.Hour)},
		{Handle: "bob", Name: "Bob", Role: board.RoleMember, Disabled: true, CreatedAt: t0.Add(time.Minute)},
	} {
		if err := f.store.CreatePerson(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	used := t0.Add(2 * time.Hour)
	if err := f.store.CreateToken(ctx, board.APIToken{ID: strings.Repeat("ab", 8), Hash: strings.Repeat("ab", 32), Handle: "ada", Agent: "alice",
		Label: "laptop", CreatedBy: "human:ada", CreatedAt: t0, LastUsedAt: &used}); err != nil {
		t.Fatal(err)
	}
}

// export writes f's board with people.
func export(t *testing.T, f *fixture, opts boardfile.ExportOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	opts.Now = f.clock.Now()
	if _, err := boardfile.Export(context.Background(), f.store, &out, opts); err != nil {
		t.Fatalf("export from %s: %v", f.be.Name, err)
	}
	return out.Bytes()
}

// loadInto imports file into f; a file exported with people is imported
// with them (--with-people), as a move of the whole board is.
func loadInto(t *testing.T, f *fixture, file []byte, opts boardfile.LoadOptions) boardfile.LoadResult {
	t.Helper()
	opts.Now = f.clock.Now()
	opts.WithPeople = opts.WithPeople || withPeople(file)
	res, err := boardfile.Load(context.Background(), f.store, bytes.NewReader(file), opts)
	if err != nil {
		t.Fatalf("import into %s: %v", f.be.Name, err)
	}
	return res
}

// items is a file's lines without the header (which names the export),
// sorted: stores list notes in different orders, and the file's order is
// checked apart (TestExportOrder).
func items(file []byte) []string {
	lines := strings.Split(strings.TrimSpace(string(file)), "\n")
	out := slices.Clone(lines[1:])
	slices.Sort(out)
	return out
}

// withPeople says whether file's header says it holds people.
func withPeople(file []byte) bool {
	head, _, _ := bytes.Cut(file, []byte("\n"))
	return bytes.Contains(head, []byte(`"with_people":true`))
}
