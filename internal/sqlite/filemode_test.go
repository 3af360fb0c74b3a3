//go:build unix

package sqlite_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// The database, its WAL and shared-memory files and the data directory
// were created under the umask (0644 and 0755 under the usual 022),
// readable by every user of the machine, and so were backups: password,
// session and token hashes with every ticket. They are 0600 files in a
// 0700 directory now, under any umask; a directory that existed keeps its
// mode.
func TestStoreFilesAreTheOwnersAlone(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o277} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			root := t.TempDir()
			existing := filepath.Join(root, "existing")
			if err := os.Mkdir(existing, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(existing, 0o755); err != nil {
				t.Fatal(err)
			}
			old := syscall.Umask(mask)
			defer syscall.Umask(old)

			dir := filepath.Join(root, "data", "ledger")
			st, err := sqlite.OpenDir(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			svc, err := board.NewService(board.Config{Store: st, BaseURL: "https://board.test"})
			if err != nil {
				t.Fatal(err)
			}
			ctx := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:modes", Source: board.SourceMCP})
			if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: "modes-1", Workspace: "inbox", NewTicket: board.NewTicket{Title: "Private"}}); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, sqlite.FileName)
			wantMode(t, dir, fs.ModeDir|0o700)
			wantMode(t, filepath.Dir(dir), fs.ModeDir|0o700) // a parent it made
			for _, f := range []string{db, db + "-wal", db + "-shm", db + "-turn"} {
				wantMode(t, f, 0o600)
			}

			backups := filepath.Join(root, "backups")
			if err := os.Mkdir(backups, 0o700); err != nil {
				t.Fatal(err)
			}
			copyPath := filepath.Join(backups, "copy.db")
			if _, err := sqlite.Backup(t.Context(), db, copyPath); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(backups)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				wantMode(t, filepath.Join(backups, e.Name()), 0o600)
			}
			if len(entries) != 1 {
				t.Errorf("the backup left %d files, want the copy alone: %v", len(entries), entries)
			}

			// A data directory that exists is the operator's: its mode
			// stays, the store's files in it are 0600.
			st2, err := sqlite.OpenDir(t.Context(), existing)
			if err != nil {
				t.Fatal(err)
			}
			defer st2.Close()
			wantMode(t, existing, fs.ModeDir|0o755)
			wantMode(t, filepath.Join(existing, sqlite.FileName), 0o600)
		})
	}
}

// wantMode fails unless path has exactly mode (type bits and permissions).
func wantMode(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if got := info.Mode() & (fs.ModeType | fs.ModePerm); got != mode {
		t.Errorf("%s: mode %v, want %v", filepath.Base(path), got, mode)
	}
}
