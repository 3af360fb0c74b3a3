package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	_ "modernc.org/sqlite"
)

// TestBackupDuringWriteStorm: four writers create tickets without pause
// while a backup copies the file. The copy opens as a store, passes the
// integrity check, and holds every ticket acknowledged before the backup
// started; the writers went on during and after it, unharmed.
func TestBackupDuringWriteStorm(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, sqlite.FileName)
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:storm", Source: board.SourceMCP})

	var mu sync.Mutex
	var acked []string
	ackedCount := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	stop := storm(t, 4, func(w, i int) error {
		res, err := svc.CreateTicket(ctx, board.CreateTicketInput{
			RequestID: fmt.Sprintf("storm-%d-%d", w, i),
			Workspace: "inbox",
			NewTicket: board.NewTicket{Title: fmt.Sprintf("Storm %d/%d", w, i), Body: strings.Repeat("x", 200)},
		})
		if err == nil {
			mu.Lock()
			acked = append(acked, res.Ticket.ID)
			mu.Unlock()
		}
		return err
	})
	defer stop()
	waitFor := func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for ackedCount() < n {
			if time.Now().After(deadline) || t.Failed() {
				t.Fatalf("waiting for %s: %d acknowledged writes, want %d", what, ackedCount(), n)
			}
			time.Sleep(5 * time.Millisecond) // the poll's interval
		}
	}
	waitFor("the storm to start", 100)
	mu.Lock()
	before := append([]string(nil), acked...) // acknowledged before the backup started
	mu.Unlock()
	dest := filepath.Join(t.TempDir(), "backup.db")
	res, err := sqlite.Backup(context.Background(), path, dest)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("writes after the backup", len(before)+100)
	stop()
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".*partial*")); len(leftovers) != 0 {
		t.Fatalf("the temporary copy is left beside the backup: %v", leftovers)
	}
	t.Logf("backup: %d bytes, %d tickets (%d acknowledged before it began, %d by the end of the storm)",
		res.Bytes, res.Tickets, len(before), ackedCount())

	if res.Path != dest || res.Tickets < len(before) || res.Workspaces < 1 || res.Bytes <= 0 {
		t.Fatalf("backup result %+v; want %s with at least %d tickets", res, dest, len(before))
	}
	raw, err := sql.Open("sqlite", "file:"+dest)
	if err != nil {
		t.Fatal(err)
	}
	var verdict string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&verdict); err != nil || verdict != "ok" {
		t.Fatalf("integrity_check of the copy: %q, %v", verdict, err)
	}
	raw.Close()
	copyStore, err := sqlite.Open(t.Context(), dest)
	if err != nil {
		t.Fatalf("the copy does not open as a store: %v", err)
	}
	defer copyStore.Close()
	restored, err := board.NewService(board.Config{Store: copyStore, BaseURL: "https://board.test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range before {
		if _, err := restored.GetTicket(ctx, board.TicketIDInput{ID: id}); err != nil {
			t.Fatalf("ticket %s, acknowledged before the backup, is not in the copy: %v", id, err)
		}
	}
	// A retry of a write acknowledged before the backup replays on the copy.
	again, err := restored.CreateTicket(ctx, board.CreateTicketInput{
		RequestID: "storm-0-0",
		Workspace: "inbox",
		NewTicket: board.NewTicket{Title: "Storm 0/0", Body: strings.Repeat("x", 200)},
	})
	if err != nil || !again.Replayed {
		t.Fatalf("a retry on the restored copy: replayed %v, %v; want the first answer replayed", again.Replayed, err)
	}
}

// TestBackupRefusesToOverwrite: an existing file is never overwritten, and
// a missing store is named.
func TestBackupRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	dest := filepath.Join(t.TempDir(), "taken.db")
	if err := os.WriteFile(dest, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Backup(t.Context(), path, dest); err == nil || !strings.Contains(err.Error(), "never overwrites") {
		t.Fatalf("backup onto an existing file: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "keep me" {
		t.Fatalf("the existing file was changed: %q", b)
	}
	if _, err := sqlite.Backup(t.Context(), filepath.Join(t.TempDir(), "none.db"), filepath.Join(t.TempDir(), "b.db")); err == nil || !strings.Contains(err.Error(), "no store at") {
		t.Fatalf("backup of a missing store: %v", err)
	}
}
