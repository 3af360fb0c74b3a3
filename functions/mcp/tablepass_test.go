package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// cancelOnWrite cancels a context at the first thing written to it: the
// first workspace a pass reports.
type cancelOnWrite struct {
	bytes.Buffer
	once   sync.Once
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.once.Do(w.cancel)
	return w.Buffer.Write(p)
}

// A pass over the table that stops says, in its own command's words, where
// to resume (the next workspace, in slug order), and fails; resuming there
// reports the workspaces left.
func TestTablePassSaysWhereToResume(t *testing.T) {
	for _, name := range []string{"reindex-words", "backfill-claims"} {
		t.Run(name, func(t *testing.T) {
			store, _, _, env := newReindexTable(t)
			now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			putTickets(t, store, board.Ticket{ID: "inbox-1", Workspace: "inbox", Number: 1, Title: "Old ticket", Status: board.StatusCandidate,
				Priority: board.PriorityNormal, Tags: []string{}, Links: []board.Link{}, CreatedBy: "ai:x", CreatedAt: now, UpdatedAt: now, Version: 1})

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stdout := &cancelOnWrite{cancel: cancel}
			var stderr bytes.Buffer
			cmd := command{args: []string{name}, stdout: stdout, stderr: &stderr, getenv: mapEnv(env)}
			code := cmd.run(ctx)
			if want := "resume with: " + name + " --from private-0\n"; code != exitFailed || !strings.Contains(stderr.String(), want) ||
				stdout.String() != "inbox\t1 tickets\n" {
				t.Fatalf("%s stopped after inbox: exit %d, stdout %q, stderr %q; want %q", name, code, stdout.String(), stderr.String(), want)
			}

			var resumed, errs bytes.Buffer
			cmd = command{args: []string{name, "--from", "private-0"}, stdout: &resumed, stderr: &errs, getenv: mapEnv(env)}
			if code := cmd.run(context.Background()); code != exitOK || strings.Contains(resumed.String(), "inbox") || !strings.Contains(resumed.String(), "private\t") {
				t.Errorf("%s --from private-0: exit %d, stdout %q, stderr %q", name, code, resumed.String(), errs.String())
			}
		})
	}
}
