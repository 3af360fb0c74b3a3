package boardfile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

const grown = 12 // tickets grow puts in ops

// TestRoundTrip moves a board SQLite → DynamoDB → SQLite and compares
// everything at each step: every line of the exports (every field of
// every workspace, ticket, relation, note, event, request record, person and
// token, inbox item), the counts, the history and the inboxes the service
// reads (read and unread items, mentions, an edited note), and that a
// retried create with an old request_id replays on the new store. A
// connected agent moves with its person: its tokens work on each new store
// (checkAgents), and revoked or expired connections stay behind.
func TestRoundTrip(t *testing.T) {
	for _, dyn := range []string{testbackends.Minidyn, testbackends.Moto} {
		t.Run(dyn, func(t *testing.T) {
			t.Parallel()
			clock := testbackends.NewClock(t0)
			src := open(t, testbackends.SQLite, clock)
			grow(t, src, grown)
			relate(t, src)
			fillInboxes(t, src)
			original, err := src.svc.CreateTicket(src.as("ai:alice", "human:ada", ""), createInput(1))
			if err != nil || !original.Replayed {
				t.Fatalf("the source replays create-1: %+v, %v", original, err)
			}
			conns := connectAgents(t, src)
			file1 := export(t, src, boardfile.ExportOptions{WithPeople: true})
			checkInboxFile(t, file1)
			// The live grant, its client, and its tokens: the first access
			// token, the used and the new refresh token, the new access token.
			if clients, grants, tokens := agentCounts(file1); clients != 1 || grants != 1 || tokens != 4 {
				t.Fatalf("the export holds %d clients, %d grants, %d OAuth tokens; want 1, 1 and 4", clients, grants, tokens)
			}
			if strings.Contains(string(file1), conns.live.refresh) || strings.Contains(string(file1), conns.live.access) {
				t.Fatal("the export holds a token, not its hash")
			}

			mid := open(t, dyn, clock)
			res := loadInto(t, mid, file1, boardfile.LoadOptions{})
			checkAllWritten(t, res, file1)
			file2 := export(t, mid, boardfile.ExportOptions{WithPeople: true})
			if got, want := items(file2), items(file1); !slices.Equal(got, want) {
				t.Fatalf("%s's export differs from SQLite's:\n%s", dyn, diff(want, got))
			}

			back := open(t, testbackends.SQLite, clock)
			checkAllWritten(t, loadInto(t, back, file2, boardfile.LoadOptions{}), file2)
			file3 := export(t, back, boardfile.ExportOptions{WithPeople: true})
			if got, want := items(file3), items(file1); !slices.Equal(got, want) {
				t.Fatalf("the board back on SQLite differs from the original:\n%s", diff(want, got))
			}

			for _, f := range []*fixture{mid, back} {
				sameReads(t, src, f)
				checkReplay(t, f, original.Ticket)
				checkNoteEditReplays(t, f)
				sameInboxes(t, src, f)
			}
			checkAgents(t, mid, conns, true)
			checkAgents(t, back, conns, false)
			for _, f := range []*fixture{mid, back} {
				sameReadiness(t, src, f)
			}
		})
	}
}

// checkAllWritten: an import into a fresh store writes every line.
func checkAllWritten(t *testing.T, res boardfile.LoadResult, file []byte) {
	t.Helper()
	want := map[string]int{}
	for _, l := range items(file) {
		for _, k := range boardfile.Kinds() {
			if len(l) > 10 && l[:len(`{"kind":"`)+len(k)+1] == `{"kind":"`+k+`"` {
				want[k]++
			}
		}
	}
	// A fresh store's seeded workspace that the file holds unchanged and
	// unused is already there.
	got := map[string]int(res.Written)
	got[boardfile.KindWorkspace] += res.AlreadyThere[boardfile.KindWorkspace]
	if !reflect.DeepEqual(got, want) || len(res.Kept) > 0 || len(res.AlreadyThere) > 1 {
		t.Errorf("written %v, want every line of the file: %v (already there %v, kept %v, skipped %v)", got, want, res.AlreadyThere, res.Kept, res.Skipped)
	}
}

// sameReads compares what the service reads on two stores: workspaces
// with their counts, a listing with its total, every ticket's detail and
// the activity feed.
func sameReads(t *testing.T, a, b *fixture) {
	t.Helper()
	ctx := a.as("human:ada", "", board.RoleAdmin)
	wa, err := a.svc.ListWorkspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := b.svc.ListWorkspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(wa, wb) {
		t.Errorf("workspaces on %s:\n%+v\nwant\n%+v", b.be.Name, wb, wa)
	}
	la, err := a.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "ops", Status: board.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "ops", Status: board.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	if !sameAnswer(la, lb) {
		t.Errorf("done tickets on %s:\n%+v\nwant\n%+v", b.be.Name, lb, la)
	}
	// The moved tickets are found by their words, as on the source: a
	// title word, a body word and a tag.
	for _, q := range []string{"ticket ", "unicode ", "t1 "} {
		sa, err := a.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "ops", Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.svc.ListTickets(ctx, board.ListTicketsInput{Workspace: "ops", Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(sa.Tickets) == 0 || !sameAnswer(sa, sb) {
			t.Errorf("search %q on %s finds %d tickets, the source %d", q, b.be.Name, len(sb.Tickets), len(sa.Tickets))
		}
	}
	for i := 1; i <= grown; i++ {
		id := fmt.Sprintf("ops-%d", i)
		da, err := a.svc.GetTicket(ctx, board.TicketIDInput{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		db, err := b.svc.GetTicket(ctx, board.TicketIDInput{ID: id})
		if err != nil {
			t.Fatalf("%s on %s: %v", id, b.be.Name, err)
		}
		if !sameAnswer(da, db) {
			t.Errorf("%s on %s:\n%+v\nwant\n%+v", id, b.be.Name, db, da)
		}
	}
	fa, err := a.svc.ListActivity(ctx, board.ListActivityInput{Workspace: "ops", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := b.svc.ListActivity(ctx, board.ListActivityInput{Workspace: "ops", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fa.Events, fb.Events) || len(fa.Events) == 0 {
		t.Errorf("activity on %s (%d events) differs from the source's (%d events)", b.be.Name, len(fb.Events), len(fa.Events))
	}
}

// checkReplay: a create retried with its old request_id and the same
// arguments answers the original ticket on the new store, and a new create
// gets the next number.
func checkReplay(t *testing.T, f *fixture, want board.Ticket) {
	t.Helper()
	ctx := f.as("ai:alice", "human:ada", "")
	got, err := f.svc.CreateTicket(ctx, createInput(1))
	if err != nil {
		t.Fatalf("retry on %s: %v", f.be.Name, err)
	}
	if !got.Replayed || got.Ticket.ID != want.ID || !board.SameTicket(got.Ticket, want) {
		t.Errorf("retry on %s: replayed=%v ticket %+v, want the replay of %+v", f.be.Name, got.Replayed, got.Ticket, want)
	}
	in := createInput(1)
	in.RequestID = "after-the-move"
	fresh, err := f.svc.CreateTicket(ctx, in)
	if err != nil {
		t.Fatalf("new create on %s: %v", f.be.Name, err)
	}
	if want := fmt.Sprintf("ops-%d", grown+1); fresh.Ticket.ID != want || fresh.Replayed {
		t.Errorf("new create on %s made %s (replayed %v), want %s", f.be.Name, fresh.Ticket.ID, fresh.Replayed, want)
	}
	list, err := f.svc.ListWorkspaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range list.Workspaces {
		if w.Slug == "ops" && w.Counts[board.StatusCandidate]+w.Counts[board.StatusDone] != grown+1 {
			t.Errorf("ops counts on %s after a new create: %v, want %d tickets", f.be.Name, w.Counts, grown+1)
		}
	}
}

// diff names the first lines that differ.
func diff(want, got []string) string {
	out := ""
	for i := 0; i < max(len(want), len(got)) && len(out) < 4000; i++ {
		w, g := "", ""
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			out += fmt.Sprintf("want %s\n got %s\n", w, g)
		}
	}
	return out
}

// sameAnswer compares two answers as callers receive them (JSON): an
// answer also holds, unexported, the seal of its store's cursors, and each
// store has its own key.
func sameAnswer(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
