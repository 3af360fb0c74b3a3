package boardfile_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// targets are the stores these tests import into (moto is covered by the
// round trip; these repeat imports and would only be slower there).
var targets = []string{testbackends.SQLite, testbackends.Minidyn}

// TestRunTwice: a second import of the same file writes nothing and
// leaves the store as the first left it.
func TestRunTwice(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 6)
	connectAgents(t, src)
	file := export(t, src, boardfile.ExportOptions{WithPeople: true})
	for _, name := range targets {
		t.Run(name, func(t *testing.T) {
			dst := open(t, name, clock)
			first := loadInto(t, dst, file, boardfile.LoadOptions{})
			before := export(t, dst, boardfile.ExportOptions{WithPeople: true})
			second := loadInto(t, dst, file, boardfile.LoadOptions{})
			if second.WrittenTotal() != 0 || total(second.AlreadyThere) != first.WrittenTotal()+total(first.AlreadyThere) {
				t.Errorf("second run wrote %v, found %v; want nothing written and all %d items already there", second.Written, second.AlreadyThere, first.WrittenTotal())
			}
			if after := export(t, dst, boardfile.ExportOptions{WithPeople: true}); !slices.Equal(items(after), items(before)) {
				t.Errorf("the second run changed the store:\n%s", diff(items(before), items(after)))
			}
		})
	}
}

// failingReader gives n bytes, then fails as a killed pipe would.
type failingReader struct {
	r io.Reader
	n int
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("broken pipe")
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

// TestResume: an import stopped part way (its input failing, as when the
// exporting side is killed) and run again with the whole file completes
// the board and writes nothing twice.
func TestResume(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 6)
	connectAgents(t, src)
	file := export(t, src, boardfile.ExportOptions{WithPeople: true})
	for _, name := range targets {
		t.Run(name, func(t *testing.T) {
			dst := open(t, name, clock)
			first, err := boardfile.Load(context.Background(), dst.store, &failingReader{r: bytes.NewReader(file), n: len(file) / 2}, boardfile.LoadOptions{Now: clock.Now(), WithPeople: withPeople(file)})
			if err == nil || first.WrittenTotal() == 0 {
				t.Fatalf("the interrupted import: %v after writing %v; want an error after writing some items", err, first.Written)
			}
			second := loadInto(t, dst, file, boardfile.LoadOptions{})
			for _, k := range boardfile.Kinds() {
				if k == boardfile.KindWorkspace {
					continue // seeded workspaces are already there on both runs
				}
				if got, want := first.Written[k]+second.Written[k], strings.Count(string(file), `{"kind":"`+k+`"`); got != want {
					t.Errorf("%s: written %d + %d, want each of the file's %d once", k, first.Written[k], second.Written[k], want)
				}
			}
			if got, want := items(export(t, dst, boardfile.ExportOptions{WithPeople: true})), items(file); !slices.Equal(got, want) {
				t.Errorf("the resumed board differs from the source:\n%s", diff(want, got))
			}
		})
	}
}

// TestNonEmptyTarget: a store that holds another board is refused without
// --merge, and nothing is written; so is a store stopped part way through
// another file's import.
func TestNonEmptyTarget(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 3)
	file := export(t, src, boardfile.ExportOptions{})
	for _, name := range targets {
		t.Run(name, func(t *testing.T) {
			used := open(t, name, clock)
			if _, err := used.svc.CreateTicket(used.as("human:ada", "", board.RoleAdmin), board.CreateTicketInput{RequestID: "mine", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Mine"}}); err != nil {
				t.Fatal(err)
			}
			other := open(t, name, clock)
			loadInto(t, other, export(t, used, boardfile.ExportOptions{}), boardfile.LoadOptions{})
			for _, dst := range []*fixture{used, other} {
				before := export(t, dst, boardfile.ExportOptions{})
				_, err := boardfile.Load(context.Background(), dst.store, bytes.NewReader(file), boardfile.LoadOptions{Now: clock.Now(), WithPeople: withPeople(file)})
				if !errors.Is(err, boardfile.ErrNotEmpty) || !strings.Contains(err.Error(), "--merge=skip") {
					t.Errorf("import into a used store: %v, want a refusal naming --merge", err)
				}
				if after := export(t, dst, boardfile.ExportOptions{}); !slices.Equal(items(after), items(before)) {
					t.Errorf("the refused import wrote:\n%s", diff(items(before), items(after)))
				}
			}
		})
	}
}

// TestMerge: --merge=skip keeps the target's copy of a clashing ticket
// (and leaves out that ticket's notes, history and records), lists it,
// and adds the rest; --merge=fail stops at the clash with its line.
func TestMerge(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 4)
	file := export(t, src, boardfile.ExportOptions{})
	for _, name := range targets {
		t.Run(name, func(t *testing.T) {
			newTarget := func() *fixture {
				dst := open(t, name, clock)
				admin := dst.as("human:ada", "", board.RoleAdmin)
				if _, err := dst.svc.CreateWorkspace(admin, board.CreateWorkspaceInput{RequestID: "ws", Slug: "ops", Name: "Operations"}); err != nil {
					t.Fatal(err)
				}
				if _, err := dst.svc.CreateTicket(admin, board.CreateTicketInput{RequestID: "theirs", Workspace: "ops", NewTicket: board.NewTicket{Title: "Their ops-1"}}); err != nil {
					t.Fatal(err)
				}
				return dst
			}

			dst := newTarget()
			var listed bytes.Buffer
			res := loadInto(t, dst, file, boardfile.LoadOptions{Merge: boardfile.MergeSkip, Collisions: &listed})
			if res.Kept[boardfile.KindTicket] != 1 || !strings.Contains(listed.String(), "ticket ops-1") {
				t.Errorf("kept %v, listed %q; want ops-1 kept and listed", res.Kept, listed.String())
			}
			if res.Written[boardfile.KindTicket] != 4 || res.Skipped[boardfile.KindEvent] == 0 || res.Skipped[boardfile.KindRequest] == 0 {
				t.Errorf("written %v, skipped %v; want the 4 other tickets added and ops-1's events and records left out", res.Written, res.Skipped)
			}
			ctx := dst.as("human:ada", "", board.RoleAdmin)
			d, err := dst.svc.GetTicket(ctx, board.TicketIDInput{ID: "ops-1"})
			if err != nil || d.Ticket.Title != "Their ops-1" || len(d.History) != 1 {
				t.Errorf("ops-1 after the merge: %+v, %v; want the target's own, with its one event", d, err)
			}
			// The next number is past every ticket the merge brought: ops-5 on
			// SQLite; DynamoDB numbers from blocks an instance leased, so its
			// next may lie past the block the target's own create took (gaps
			// are allowed, reuse never).
			made, err := dst.svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "after", Workspace: "ops", NewTicket: board.NewTicket{Title: "Next"}})
			if err != nil || made.Ticket.Number < 5 || name == testbackends.SQLite && made.Ticket.ID != "ops-5" {
				t.Errorf("a create after the merge made %+v, %v; want ops-5 (on DynamoDB a number of 5 or more)", made.Ticket.ID, err)
			}

			dst = newTarget()
			_, err = boardfile.Load(context.Background(), dst.store, bytes.NewReader(file), boardfile.LoadOptions{Merge: boardfile.MergeFail, Now: clock.Now(), WithPeople: withPeople(file)})
			var le *boardfile.LineError
			lines := strings.Split(string(file), "\n")
			if !errors.As(err, &le) || !strings.HasPrefix(lines[le.Line-1], `{"kind":"ticket","ticket":{"id":"ops-1"`) {
				t.Errorf("--merge=fail: %v, want a stop at ops-1's line", err)
			}
		})
	}
}

// TestWorkspaceClash: a workspace the target holds with other settings
// stops --merge=fail at that workspace's line; --merge=skip keeps the
// target's name and policy and adds the tickets.
func TestWorkspaceClash(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 2)
	file := export(t, src, boardfile.ExportOptions{})
	lines := strings.Split(string(file), "\n")
	opsLine := indexOf(t, lines, `{"kind":"workspace","workspace":{"slug":"ops"`) + 1
	for _, name := range targets {
		t.Run(name, func(t *testing.T) {
			newTarget := func() *fixture {
				dst := open(t, name, clock)
				if _, err := dst.svc.CreateWorkspace(dst.as("human:ada", "", board.RoleAdmin), board.CreateWorkspaceInput{RequestID: "ws", Slug: "ops", Name: "Theirs"}); err != nil {
					t.Fatal(err)
				}
				return dst
			}
			_, err := boardfile.Load(context.Background(), newTarget().store, bytes.NewReader(file), boardfile.LoadOptions{Merge: boardfile.MergeFail, Now: clock.Now(), WithPeople: withPeople(file)})
			var le *boardfile.LineError
			if !errors.As(err, &le) || le.Line != opsLine || !strings.Contains(err.Error(), "workspace ops") {
				t.Errorf("--merge=fail: %v, want a stop at line %d (workspace ops)", err, opsLine)
			}
			dst := newTarget()
			res := loadInto(t, dst, file, boardfile.LoadOptions{Merge: boardfile.MergeSkip})
			w, err := dst.store.GetWorkspace(context.Background(), "ops")
			if err != nil || w.Name != "Theirs" || res.Kept[boardfile.KindWorkspace] != 1 || res.Written[boardfile.KindTicket] != 3 {
				t.Errorf("--merge=skip: ops %+v, %v; kept %v, written %v; want the target's name kept and the 3 tickets added", w, err, res.Kept, res.Written)
			}
		})
	}
}
