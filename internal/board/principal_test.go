package board_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// The ledger namespace is (author, on_behalf_of): one function builds the
// key, it is the author alone without on_behalf_of (so records written
// before people existed keep replaying), and no two pairs share a key.
func TestLedgerKey(t *testing.T) {
	if got := (board.Principal{Author: "ai:local"}).LedgerKey(); got != "ai:local" {
		t.Fatalf("key without on_behalf_of = %q, want the author alone", got)
	}
	authors := []string{"ai:claude", "ai:claude|human:bob", "ai:c", "human:alice", "human:bob", "human", "ai:claude-human:bob"}
	obos := []string{"", "human:alice", "human:bob", "human:alice|x"}
	seen := map[string]board.Principal{}
	for _, a := range authors {
		for _, o := range obos {
			p := board.Principal{Author: a, OnBehalfOf: o}
			if board.ValidateAuthor("a", a) != nil || (o != "" && board.ValidateAuthor("o", o) != nil) {
				continue // only valid authors reach a key
			}
			k := p.LedgerKey()
			if prev, ok := seen[k]; ok {
				t.Fatalf("%+v and %+v share the key %q", prev, p, k)
			}
			seen[k] = p
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d valid pairs checked", len(seen))
	}
}

func newService(t *testing.T) (*board.Service, board.Store) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := board.NewService(board.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

// An agent acting for a person writes under its own namespace, and its
// events and notes record both.
func TestOnBehalfOfIsRecordedAndScopesTheLedger(t *testing.T) {
	svc, st := newService(t)
	alices := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:alice", Source: board.SourceMCP})
	bobs := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:bob", Source: board.SourceMCP})
	local := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", Source: board.SourceMCP})
	in := board.CreateTicketInput{RequestID: "same-id", Workspace: "inbox", NewTicket: board.NewTicket{Title: "T"}}
	a, err := svc.CreateTicket(alices, in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.CreateTicket(bobs, in)
	if err != nil || b.Replayed || b.Ticket.ID == a.Ticket.ID {
		t.Fatalf("bob's agent with alice's agent's request_id = %+v, %v; want a ticket of its own", b, err)
	}
	if c, err := svc.CreateTicket(local, in); err != nil || c.Replayed {
		t.Fatalf("the local agent with the same request_id = %+v, %v; want a ticket of its own", c, err)
	}
	if f, _ := svc.FindRequest(alices, board.FindRequestInput{RequestID: "same-id"}); f.Status != ledger.LookupDone {
		t.Fatalf("alice's agent's find_request = %+v", f)
	}
	if _, err := st.GetRequest(context.Background(), ledger.Key{Principal: "ai:claude|human:alice", RequestID: "same-id"}, a.Ticket.CreatedAt); err != nil {
		t.Fatalf("the record is not under (author, on_behalf_of): %v", err)
	}
	if _, err := svc.AddNote(alices, board.AddNoteInput{RequestID: "n-1", ID: a.Ticket.ID, Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	d, _ := svc.GetTicket(alices, board.TicketIDInput{ID: a.Ticket.ID})
	for _, ev := range d.History {
		if ev.Author != "ai:claude" || ev.OnBehalfOf != "human:alice" {
			t.Fatalf("event %+v, want author ai:claude on behalf of human:alice", ev)
		}
	}
	if n := d.Notes[0]; n.Author != "ai:claude" {
		t.Fatalf("note %+v", n)
	}
	// The ticket itself keeps whom it was created for; the local agent's
	// was created for nobody.
	if d.Ticket.CreatedBy != "ai:claude" || d.Ticket.CreatedFor != "human:alice" {
		t.Fatalf("ticket created by %q for %q, want ai:claude for human:alice", d.Ticket.CreatedBy, d.Ticket.CreatedFor)
	}
	if c, err := svc.GetTicket(local, board.TicketIDInput{ID: "inbox-3"}); err != nil || c.Ticket.CreatedBy != "ai:claude" || c.Ticket.CreatedFor != "" {
		t.Fatalf("the local agent's ticket: %+v, %v; want created by ai:claude for nobody", c.Ticket, err)
	}
}

// Workspace settings and ai_policy: admins only; creating: people only;
// both exactly once per request_id.
func TestWorkspaceUseCases(t *testing.T) {
	svc, st := newService(t)
	admin := board.WithPrincipal(context.Background(), board.Principal{Author: "human:root", Role: board.RoleAdmin, Source: board.SourceWeb})
	member := board.WithPrincipal(context.Background(), board.Principal{Author: "human:mia", Role: board.RoleMember, Source: board.SourceWeb})
	agent := board.WithPrincipal(context.Background(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:root", Source: board.SourceMCP})

	if _, err := svc.CreateWorkspace(agent, board.CreateWorkspaceInput{RequestID: "w", Slug: "x", Name: "X"}); board.ErrorCode(err) != board.CodeForbidden {
		t.Fatalf("an agent creates a workspace: %v", err)
	}
	w, err := svc.CreateWorkspace(member, board.CreateWorkspaceInput{RequestID: "w", Slug: "ops", Name: "Ops"})
	if err != nil || w.Workspace.AIPolicy != board.PolicyReadWrite {
		t.Fatalf("a member creates ops: %+v %v", w, err)
	}
	if again, err := svc.CreateWorkspace(member, board.CreateWorkspaceInput{RequestID: "w", Slug: "ops", Name: "Ops"}); err != nil || !again.Replayed {
		t.Fatalf("the same create again: %+v %v, want a replay", again, err)
	}
	if _, err := svc.CreateWorkspace(admin, board.CreateWorkspaceInput{RequestID: "w2", Slug: "ops", Name: "Other"}); board.ErrorCode(err) != board.CodeConflict {
		t.Fatalf("a taken slug: %v", err)
	}
	hidden := board.PolicyHidden
	for _, who := range []context.Context{member, agent} {
		if _, err := svc.UpdateWorkspace(who, board.UpdateWorkspaceInput{RequestID: "u", Workspace: "ops", AIPolicy: &hidden}); board.ErrorCode(err) != board.CodeForbidden {
			t.Fatalf("a non-admin changes ai_policy: %v", err)
		}
		if _, err := svc.SetWorkspacePolicy(who, board.SetWorkspacePolicyInput{Workspace: "ops", AIPolicy: hidden}); board.ErrorCode(err) != board.CodeForbidden {
			t.Fatalf("a non-admin sets the policy: %v", err)
		}
	}
	u, err := svc.UpdateWorkspace(admin, board.UpdateWorkspaceInput{RequestID: "u", Workspace: "ops", AIPolicy: &hidden})
	if err != nil || u.Workspace.AIPolicy != board.PolicyHidden {
		t.Fatalf("the admin hides ops: %+v %v", u, err)
	}
	if again, err := svc.UpdateWorkspace(admin, board.UpdateWorkspaceInput{RequestID: "u", Workspace: "ops", AIPolicy: &hidden}); err != nil || !again.Replayed {
		t.Fatalf("the same update again: %+v %v", again, err)
	}
	if evs, _ := st.ListEvents(context.Background(), "ops", 10); len(evs) != 2 {
		t.Fatalf("ops has %d events, want created + updated", len(evs))
	}
	if _, err := svc.GetWorkspaceSummary(agent, board.WorkspaceInput{Workspace: "ops"}); board.ErrorCode(err) != board.CodeNotFound {
		t.Fatalf("an agent reads the hidden workspace: %v", err)
	}
}
