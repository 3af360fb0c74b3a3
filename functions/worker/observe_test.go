package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/obs/obstest"
	"github.com/ticket-ledger/ticket-ledger/internal/sfn"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// Each worker invocation logs one line (task, action, rows imported, store
// requests) and writes valid EMF with the rows it imported; the "fail"
// action that marks a task failed counts a task failure.
func TestWorkerInvocationLogsAndMetrics(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := board.NewService(board.Config{Store: store, Runner: parked{}, InlineImportRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	alice := board.WithPrincipal(ctx, board.Principal{Author: "ai:alice", Source: board.SourceMCP})
	start := func(id string, n int) string { return startImport(t, alice, svc, id, n) }
	var logs, metrics bytes.Buffer
	handle := observed(&sfn.Worker{Svc: svc}, slog.New(slog.NewJSONHandler(&logs, nil)), obs.NewMetrics(&metrics))

	done := start("obs-import", 40)
	before, _ := svc.GetTask(alice, board.TaskIDInput{TaskID: done})
	out, err := handle(ctx, sfn.Event{TaskID: done})
	if err != nil || !out.Done {
		t.Fatalf("run: %+v %v", out, err)
	}
	failed := start("obs-import-2", 40)
	if _, err := handle(ctx, sfn.Event{Action: "fail", TaskID: failed}); err != nil {
		t.Fatal(err)
	}

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		if m["msg"] == "task invocation" {
			lines = append(lines, m)
		}
	}
	imported := float64(40 - before.Progress.Done)
	if len(lines) != 2 || lines[0]["task_id"] != done || lines[0]["action"] != "run" || lines[0]["rows_imported"] != imported ||
		lines[0]["store_requests"].(float64) < 1 || lines[0]["task_status"] != "completed" || lines[0]["level"] != "INFO" {
		t.Fatalf("invocation lines: %v (want %v rows imported)", lines, imported)
	}
	if lines[1]["action"] != "fail" || lines[1]["task_status"] != "failed" {
		t.Errorf("fail line: %v", lines[1])
	}
	var emf []obstest.EMF
	for _, l := range strings.Split(strings.TrimSpace(metrics.String()), "\n") {
		e, err := obstest.ParseEMF([]byte(l))
		if err != nil {
			t.Fatalf("invalid EMF (%v): %s", err, l)
		}
		emf = append(emf, e)
	}
	if len(emf) != 2 || emf[0].Value(obs.MetricTaskRowsImported) != imported || emf[0].Value(obs.MetricTaskFailures) != 0 ||
		emf[1].Value(obs.MetricTaskFailures) != 1 {
		t.Errorf("task metrics: %+v", emf)
	}
}

// parked takes tasks and runs nothing: the emulated worker runs them.
type parked struct{}

func (parked) Reference(board.Task) string             { return "" }
func (parked) Start(context.Context, board.Task) error { return nil }
func (parked) Stop(context.Context, board.Task) error  { return nil }

// startImport starts an import of n tickets as the caller in ctx and
// returns its task, left working for the worker (the runner is parked).
func startImport(t *testing.T, ctx context.Context, svc *board.Service, id string, n int) string {
	t.Helper()
	in := board.ImportTicketsInput{RequestID: id, Workspace: "inbox"}
	for i := range n {
		in.Tickets = append(in.Tickets, board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprintf("%s %d", id, i)}})
	}
	res, err := svc.ImportTickets(ctx, in)
	if err != nil || res.Status != board.TaskWorking {
		t.Fatalf("import = %+v, %v", res, err)
	}
	return res.TaskID
}

// The emulator test (emulator_test.go) is built only with -tags
// lambdaemulator: this says when a run left it out.
func TestLambdaEmulatorTestsAreBuilt(t *testing.T) { lambdatest.NeedEmulatorTests(t) }
