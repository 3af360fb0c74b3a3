package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// backup runs the built binary's backup command (admin).
func backup(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return admin(t, bin, env, "", append([]string{"backup"}, args...)...)
}

// The backup command beside a running server: it copies the file the
// server is using, prints what it wrote, never overwrites, refuses a
// DynamoDB store with where to look instead; restoring is starting a
// server on the copy, which answers what the first one had written, and a
// retry replays there.
func TestBackupCommandBesideARunningServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bin := buildServer(t)
	data := t.TempDir()
	srv := startServer(ctx, t, bin, data)
	cs := connect(ctx, t, srv)
	created := map[string]string{} // request_id → ticket id
	for i := range 30 {
		rid := fmt.Sprintf("backup-%d", i)
		res, err := callTool[board.TicketResult](ctx, cs, "create_ticket", map[string]any{"request_id": rid, "workspace": crashWorkspace, "title": "Before the backup " + rid})
		if err != nil {
			t.Fatal(err)
		}
		created[rid] = res.Ticket.ID
	}

	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite"}
	dest := filepath.Join(t.TempDir(), "copy.db")
	out, errOut, code := backup(t, bin, env, dest)
	m := regexp.MustCompile(`^(\S+)\t(\d+) bytes\t(\d+) tickets\t(\d+) workspaces\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != dest {
		t.Fatalf("backup: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n, _ := strconv.Atoi(m[3]); n < len(created) {
		t.Fatalf("backup says %s tickets, want at least %d", m[3], len(created))
	}
	// The copy holds what the store holds: its owner's alone, as the
	// store's own file is.
	for _, f := range []string{dest, filepath.Join(data, sqliteFileName)} {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, want 0600", f, info.Mode())
		}
	}
	if _, errOut, code := backup(t, bin, env, dest); code != exitFailed || !regexp.MustCompile(`never overwrites`).MatchString(errOut) {
		t.Fatalf("a second backup to the same file: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := backup(t, bin, []string{"LEDGER_STORE=dynamodb"}, filepath.Join(t.TempDir(), "x.db")); code != exitFailed || !regexp.MustCompile(`point-in-time recovery`).MatchString(errOut) {
		t.Fatalf("backup on DynamoDB: exit %d, stderr %q", code, errOut)
	}
	if _, _, code := backup(t, bin, env); code != exitUsage {
		t.Fatalf("backup without a file: exit %d, want %d", code, exitUsage)
	}
	srv.stop(t)

	// Restore: a server on a folder holding the copy as its store.
	restored := t.TempDir()
	raw, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, "ledger.db"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	srv2 := startServer(ctx, t, bin, restored)
	defer srv2.stop(t)
	cs2 := connect(ctx, t, srv2)
	for rid, id := range created {
		res, err := callTool[board.TicketResult](ctx, cs2, "create_ticket", map[string]any{"request_id": rid, "workspace": crashWorkspace, "title": "Before the backup " + rid})
		if err != nil || !res.Replayed || res.Ticket.ID != id {
			t.Fatalf("retry of %s on the restored server: %v replayed=%v id=%s, want %s replayed", rid, err, res.Replayed, res.Ticket.ID, id)
		}
	}
}
