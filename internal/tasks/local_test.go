package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
)

// flakyStore fails the first failures chunks as a broken disk would.
type flakyStore struct {
	board.Store
	failures atomic.Int64
}

func (f *flakyStore) ImportChunk(ctx context.Context, tx board.ChunkTx) (board.Task, error) {
	if f.failures.Add(-1) >= 0 {
		return board.Task{}, errors.New("disk I/O error")
	}
	return f.Store.ImportChunk(ctx, tx)
}

func open(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func input(id string, n int) board.ImportTicketsInput {
	in := board.ImportTicketsInput{RequestID: id, Workspace: "inbox"}
	for i := range n {
		in.Tickets = append(in.Tickets, board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprintf("row %d", i)}})
	}
	return in
}

var alice = board.WithPrincipal(context.Background(), board.Principal{Author: "ai:alice", Source: board.SourceMCP})

// waitFor polls the task until it is in status, within a deadline.
func waitFor(t *testing.T, svc *board.Service, id string, status board.TaskStatus) board.TaskView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := svc.GetTask(alice, board.TaskIDInput{TaskID: id})
		if err != nil {
			t.Fatal(err)
		}
		if v.Status == status {
			return v
		}
		if v.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("task is %s (%s), want %s", v.Status, v.StatusMessage, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLocalRunnerImportsAndRetriesTransientErrors(t *testing.T) {
	st := &flakyStore{Store: open(t, t.TempDir())}
	defer st.Close()
	st.failures.Store(3)
	svc, err := board.NewService(board.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	runner := tasks.NewLocal(svc, nil)
	defer runner.Close()
	svc.SetRunner(runner)
	res, err := svc.ImportTickets(alice, input("imp", 1200))
	if err != nil || res.Status != board.TaskWorking {
		t.Fatalf("import = %+v, %v", res, err)
	}
	v := waitFor(t, svc, res.TaskID, board.TaskCompleted)
	if v.Imported != 1200 || st.failures.Load() >= 0 {
		t.Fatalf("completed with %d imported after %d injected failures left", v.Imported, st.failures.Load())
	}
}

func TestLocalRunnerFailsOnPermanentErrors(t *testing.T) {
	st := open(t, t.TempDir())
	defer st.Close()
	svc, _ := board.NewService(board.Config{Store: st})
	parked := &parkedRunner{}
	svc.SetRunner(parked)
	res, err := svc.ImportTickets(alice, input("imp", 300))
	if err != nil {
		t.Fatal(err)
	}
	// The workspace turns read-only before the runner gets to it.
	people := board.WithPrincipal(context.Background(), board.Principal{Author: "human", Role: board.RoleAdmin, Source: board.SourceWeb})
	if _, err := svc.SetWorkspacePolicy(people, board.SetWorkspacePolicyInput{Workspace: "inbox", AIPolicy: board.PolicyReadOnly}); err != nil {
		t.Fatal(err)
	}
	runner := tasks.NewLocal(svc, nil)
	defer runner.Close()
	if n, err := runner.Resume(context.Background()); err != nil || n != 1 {
		t.Fatalf("Resume = %d, %v", n, err)
	}
	v := waitFor(t, svc, res.TaskID, board.TaskFailed)
	if v.Error == nil || v.Imported != 0 {
		t.Fatalf("failed task = %+v", v)
	}
}

// parkedRunner accepts tasks and runs nothing: a process that stopped.
type parkedRunner struct{}

func (parkedRunner) Reference(board.Task) string             { return "" }
func (parkedRunner) Start(context.Context, board.Task) error { return nil }
func (parkedRunner) Stop(context.Context, board.Task) error  { return nil }

func TestLocalRunnerResumesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	st := open(t, dir)
	svc, _ := board.NewService(board.Config{Store: st})
	svc.SetRunner(parkedRunner{})
	res, err := svc.ImportTickets(alice, input("imp", 700))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RunImport(alice, res.TaskID, 200); err != nil { // part of it, then the process "stops"
		t.Fatal(err)
	}
	st.Close()

	st = open(t, dir)
	defer st.Close()
	svc, _ = board.NewService(board.Config{Store: st})
	runner := tasks.NewLocal(svc, nil)
	defer runner.Close()
	svc.SetRunner(runner)
	if n, err := runner.Resume(context.Background()); err != nil || n != 1 {
		t.Fatalf("Resume = %d, %v; want the one unfinished task", n, err)
	}
	v := waitFor(t, svc, res.TaskID, board.TaskCompleted)
	w, _ := st.GetWorkspace(context.Background(), "inbox")
	if v.Imported != 700 || w.Counts[board.StatusCandidate] != 700 {
		t.Fatalf("imported %d, inbox has %d tickets; want 700 each", v.Imported, w.Counts[board.StatusCandidate])
	}
}
