package board_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// lossyRelationStore commits relation writes but loses the answer of the
// one numbered lose (1-based), as a crash right after a commit would.
type lossyRelationStore struct {
	board.Store
	mu    sync.Mutex
	calls int
	lose  int
}

func (s *lossyRelationStore) SaveRelation(ctx context.Context, tx board.RelationTx) (ledger.Record, error) {
	rec, err := s.Store.SaveRelation(ctx, tx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if err == nil && s.calls == s.lose {
		return rec, errors.New("connection reset after commit")
	}
	return rec, err
}

// A plan import that stops after some of its relations committed (one of
// them with its answer lost) completes on the next run: every relation
// exists once, with one history event at each end.
func TestPlanImportResumesItsRelationsExactlyOnce(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lossy := &lossyRelationStore{Store: st, lose: 2}
	svc, err := board.NewService(board.Config{Store: lossy, Runner: &recordingRunner{}, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	row := func(title, key, parent string, blockedBy ...string) board.ImportRow {
		return board.ImportRow{NewTicket: board.NewTicket{Title: title}, Key: key, Parent: parent, BlockedBy: blockedBy}
	}
	in := board.ImportTicketsInput{RequestID: "plan", Workspace: "inbox", Tickets: []board.ImportRow{
		row("epic", "epic", ""),
		row("design", "design", "epic"),
		row("build", "build", "epic", "design"),
		row("ship", "ship", "", "build", "design"),
	}}
	first, err := svc.ImportTickets(as("ai:planner"), in)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != board.TaskWorking || first.Imported != 4 {
		t.Fatalf("first run %+v: want the rows imported and the task still working after the lost answer", first)
	}
	done, err := svc.RunImport(context.Background(), first.TaskID, 0)
	if err != nil || done.Status != board.TaskCompleted || len(done.Keys) != 4 {
		t.Fatalf("resumed run: %+v %v", done, err)
	}
	// The write whose answer was lost is replayed from its record, not
	// written again: five relations, five commits.
	if lossy.calls != 5 {
		t.Errorf("%d relation commits, want 5", lossy.calls)
	}
	get := func(id string) board.TicketDetail {
		d, err := svc.GetTicket(as("human:alice"), board.TicketIDInput{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	related := func(d board.TicketDetail) int {
		n := 0
		for _, ev := range d.History {
			if ev.Type == board.EventTicketRelated {
				n++
			}
		}
		return n
	}
	want := map[string]int{"epic": 2, "design": 3, "build": 3, "ship": 2}
	for key, n := range want {
		if got := related(get(done.Keys[key])); got != n {
			t.Errorf("%s (%s) has %d related events, want %d", key, done.Keys[key], got, n)
		}
	}
	if got := get(done.Keys["ship"]).BlockedBy; len(got) != 2 {
		t.Errorf("ship blocked_by %+v, want build and design once each", got)
	}
	again, err := svc.ImportTickets(as("ai:planner"), in)
	if err != nil || !again.Replayed || again.Status != board.TaskCompleted || again.Keys["ship"] != done.Keys["ship"] {
		t.Fatalf("replay %+v %v", again, err)
	}
}
