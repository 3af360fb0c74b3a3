package dynamo_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// rtRow is one line of the round-trip table.
type rtRow struct {
	call     string
	requests int
	ops      string
	budget   int // for this endpoint; every row has one, and exceeding it fails
	note     string
}

// budget is a call's request budget per endpoint. They differ only where an
// endpoint answers differently (minidyn returns no item for a failed
// condition in a transaction, so the store reads it: one request more).
type budget struct{ moto, minidyn int }

func (b budget) on(ep endpoint) int {
	if ep.mini != nil {
		return b.minidyn
	}
	return b.moto
}

// same is a budget that holds on every endpoint.
func same(n int) budget { return budget{n, n} }

// instance is one store (one Lambda instance) with its request counter.
type instance struct {
	counter *dynamo.RequestCounter
	svc     *board.Service
}

func newInstance(t *testing.T, ep endpoint, table string, cfg dynamo.Config) instance {
	c := &dynamo.RequestCounter{}
	cfg.Table = table
	s := openStore(t, ep, c, cfg)
	c.Reset() // Open's own reads are measured separately
	return instance{counter: c, svc: newService(t, s)}
}

// TestRoundTrips counts the DynamoDB requests of each tool call through
// board.Service and holds each to its budget on each endpoint
// (docs/dynamodb.md, "Round trips": create_ticket warm ≤ 3 sequential
// round trips with its similar tickets, replay 1, update/move/note ≤ 2,
// reads 1, and the few explained exceptions, each with its own budget).
// create_ticket is measured as the tool runs it, similar tickets
// included; its titles have one word that similarity looks up ("ticket":
// cN is shorter than three runes), so the similar Query round is one
// request. Run with -v to see the table.
func TestRoundTrips(t *testing.T) {
	for _, e := range endpoints() {
		t.Run(e.name, func(t *testing.T) {
			ep := e.newEndpoint(t)
			rows := append(measureRoundTrips(t, ep), measureSignedIn(t, ep)...)
			var b strings.Builder
			fmt.Fprintf(&b, "\nround trips on %s\n| call | requests | operations | budget | note |\n|---|---|---|---|---|\n", e.name)
			for _, r := range rows {
				fmt.Fprintf(&b, "| %s | %d | %s | %d | %s |\n", r.call, r.requests, r.ops, r.budget, r.note)
			}
			t.Log(b.String())
			for _, r := range rows {
				if r.requests > r.budget {
					t.Errorf("%s on %s: %d requests (%s), budget %d", r.call, e.name, r.requests, r.ops, r.budget)
				}
			}
		})
	}
}

func measureRoundTrips(t *testing.T, ep endpoint) []rtRow {
	table := tableName()
	ctx := aiCtx(t)
	var rows []rtRow
	measure := func(in instance, call string, b budget, note string, fn func() error) {
		t.Helper()
		in.counter.Reset()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		rows = append(rows, rtRow{call: call, requests: in.counter.Total(), ops: in.counter.Ops(), budget: b.on(ep), note: note})
	}
	create := func(in instance, id string) func() error {
		return func() error {
			_, err := in.svc.CreateTicketFindingSimilar(ctx, board.CreateTicketInput{RequestID: id, Workspace: "inbox", NewTicket: board.NewTicket{Title: "ticket " + id, Tags: []string{"rt"}}})
			return err
		}
	}
	replay := func(in instance, id string) func() error {
		return func() error {
			res, err := in.svc.CreateTicketFindingSimilar(ctx, board.CreateTicketInput{RequestID: id, Workspace: "inbox", NewTicket: board.NewTicket{Title: "ticket " + id, Tags: []string{"rt"}}})
			if err == nil && !res.Replayed {
				err = fmt.Errorf("not a replay")
			}
			return err
		}
	}

	// The first instance creates the table; the next one opens it as a
	// Lambda cold start does.
	openStore(t, ep, nil, dynamo.Config{Table: table})
	openCounter := &dynamo.RequestCounter{}
	if _, err := dynamo.Open(ctx, dynamo.Config{Client: testClient(t, ep, openCounter), Table: table}); err != nil {
		t.Fatal(err)
	}
	rows = append(rows, rtRow{call: "Open (cold start; table and seed exist)", requests: openCounter.Total(), ops: openCounter.Ops(),
		budget: 1, note: "once per instance; warms the policy cache (+1 DescribeTable with CreateTable)"})

	// The warm instance keeps what it read for the whole test: on a slow
	// endpoint the calls before a row can outlast DefaultPolicyTTL, and a
	// policy read again is the uncached instance's row, not a warm one's.
	a := newInstance(t, ep, table, dynamo.Config{PolicyTTL: time.Hour})
	measure(a, "create_ticket, first after Open", same(4), "at once the similar Query (it finds no other ticket: no BatchGetItem) and the record with the workspace's policy (one consistent BatchGetItem); the lease of a block of numbers (UpdateItem, once in at least ten creates); the transaction: three round trips", create(a, "c1"))
	measure(a, "create_ticket, warm", same(4), "the similar Query beside the record and policy BatchGetItem, the similar tickets' BatchGetItem, the transaction storing them in the record: three round trips", create(a, "c2"))
	cold := newInstance(t, ep, table, dynamo.Config{Seed: []board.Workspace{}})
	measure(cold, "create_ticket, cold (no block of numbers)", same(6), "as warm, the similar lookup also reading the policy it has not cached (one GetItem, in the first round), then the lease before the transaction: four round trips, once per instance and workspace", create(cold, "c3"))
	measure(a, "create_ticket after another instance created", same(4),
		"as warm: nothing to retry, each instance numbers from its own block", create(a, "c4"))
	measure(a, "create_ticket replay, warm", same(1), "the record (one GetItem) of a request this instance answered: similar from the record", replay(a, "c4"))
	replayCold := newInstance(t, ep, table, dynamo.Config{Seed: []board.Workspace{}})
	measure(replayCold, "create_ticket replay, cold", same(4), "found by the record and policy BatchGetItem; the similar lookup (with its own policy GetItem, not cached yet) went out beside it (two round trips); similar from the record", replay(replayCold, "c4"))
	measure(replayCold, "create_ticket replay, a request this instance never saw", same(3),
		"found by the record and policy BatchGetItem, beside the similar lookup's two round trips; similar from the record", replay(replayCold, "c2"))
	// The similar tickets an answer to create_ticket carries: of "ticket
	// c4" only "ticket" is looked up (c4 is shorter than three runes), so
	// one Query, then the candidates in one BatchGetItem.
	measure(a, "similar tickets of a create (one title word looked up)", same(2), "a keys-only Query per title word looked up (at most 8, at once), then one BatchGetItem: two round trips", func() error {
		got, err := a.svc.SimilarTickets(ctx, board.SimilarInput{Workspace: "inbox", Title: "ticket c4", Exclude: "inbox-4"})
		if err == nil && len(got) == 0 {
			err = fmt.Errorf("no similar tickets found")
		}
		return err
	})

	title := "renamed"
	measure(a, "update_ticket", same(2), "", func() error {
		_, err := a.svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u1", ID: "inbox-1", Title: &title})
		return err
	})
	measure(a, "update_ticket replay", same(1), "", func() error {
		_, err := a.svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u1", ID: "inbox-1", Title: &title})
		return err
	})
	measure(a, "move_ticket", same(2), "the count change on this instance's count shard, in the same transaction", func() error {
		_, err := a.svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: "m1", ID: "inbox-1", Status: board.StatusDoing})
		return err
	})
	var noteID string
	measure(a, "add_note", same(2), "", func() error {
		res, err := a.svc.AddNote(ctx, board.AddNoteInput{RequestID: "n1", ID: "inbox-1", Body: "note"})
		noteID = res.Note.ID
		return err
	})
	measure(a, "edit_note", same(5), "the record and ticket (BatchGetItem), the note by the key its id names (one GetItem), its earlier edits from the ticket's history since the note (the history's GetItem and Query, a page per 100 events), the transaction", func() error {
		_, err := a.svc.EditNote(ctx, board.EditNoteInput{RequestID: "en1", NoteID: noteID, Body: "note, edited"})
		return err
	})
	measure(a, "get_ticket (policy cached)", same(2), "the ticket with its activity, then its relations (a Query of its relation partition)", func() error {
		_, err := a.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		return err
	})
	uncached := newInstance(t, ep, table, dynamo.Config{PolicyTTL: -1})
	measure(uncached, "get_ticket (policy not cached)", same(3), "the policy GetItem comes first, so a ticket the caller may not see is never read; its relations last", func() error {
		_, err := uncached.svc.GetTicket(ctx, board.TicketIDInput{ID: "inbox-1"})
		return err
	})
	measure(a, "list_tickets (policy cached)", same(2), "this instance's own writes dropped its cached counts: they are read again beside the list (one round trip)", func() error {
		_, err := a.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox"})
		return err
	})
	measure(a, "list_tickets, tag + query filter", same(2), "the query's index items, then the tickets by key, the tag checked on them", func() error {
		_, err := a.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Tag: "rt", Query: "TICKET"})
		return err
	})
	measure(a, "list_tickets, one whole word (policy cached)", same(2), "the word's index items, then their tickets by key", func() error {
		_, err := a.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: "ticket "})
		return err
	})
	measure(uncached, "list_tickets, one whole word (policy not cached)", same(3), "the policy GetItem first", func() error {
		_, err := uncached.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: "ticket "})
		return err
	})
	measure(a, "list_tickets, a prefix (policy cached)", same(2), "every index item of the words it begins, then the tickets by key", func() error {
		_, err := a.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox", Query: "tick"})
		return err
	})
	measure(uncached, "list_tickets (policy not cached)", same(2), "the policy GetItem first, as for get_ticket", func() error {
		_, err := uncached.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "inbox"})
		return err
	})
	measure(a, "find_request (policy cached)", same(1), "", func() error {
		_, err := a.svc.FindRequest(ctx, board.FindRequestInput{RequestID: "c1"})
		return err
	})
	measure(uncached, "find_request (policy not cached)", same(2), "the record, then its workspace's policy (a result of a workspace hidden since is not shown)", func() error {
		_, err := uncached.svc.FindRequest(ctx, board.FindRequestInput{RequestID: "c1"})
		return err
	})
	measure(a, "update_ticket, nothing changes", same(2), "the record with a check of the ticket's version", func() error {
		_, err := a.svc.UpdateTicket(ctx, board.UpdateTicketInput{RequestID: "u-same", ID: "inbox-1", Title: &title})
		return err
	})
	measure(a, "list_workspaces", same(1), "one Query: the workspace items with their count shards", func() error {
		_, err := a.svc.ListWorkspaces(ctx)
		return err
	})
	measure(a, "get_workspace_summary", same(4), "a Query of the workspace with its count shards, then three Queries at once: waiting_ai, open due, events", func() error {
		_, err := a.svc.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: "inbox"})
		return err
	})
	return rows
}
