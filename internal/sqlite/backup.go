package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	modernc "modernc.org/sqlite"
)

// BackupResult is what a backup wrote.
type BackupResult struct {
	Path       string // the copy
	Bytes      int64  // its size
	Tickets    int    // tickets in the copy
	Workspaces int    // workspaces in the copy
}

// Backup copies the database at path to dest while servers may be reading
// and writing it: VACUUM INTO reads one snapshot (a read transaction, so
// in WAL mode writers go on), and writes a compact copy. Every write
// acknowledged before Backup was called is in the copy; writes that commit
// while it runs may or may not be. The copy is made beside dest under a
// temporary name, checked (PRAGMA integrity_check), and only then given
// dest's name, so dest is never a half-written file; an existing dest is
// refused, never overwritten. Restoring is starting a server on the copy.
func Backup(ctx context.Context, path, dest string) (BackupResult, error) {
	if _, err := os.Stat(path); err != nil {
		return BackupResult{}, fmt.Errorf("no store at %s: %w", path, err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return BackupResult{}, fmt.Errorf("%s exists already; a backup never overwrites: name a new file", dest)
	}
	src, err := openPlain(path)
	if err != nil {
		return BackupResult{}, err
	}
	defer src.Close()
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	tmp := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".partial-"+hex.EncodeToString(suffix[:]))
	// VACUUM INTO writes into an empty file that exists, keeping its
	// mode: the copy is 0600 like the store, not SQLite's 0644.
	if err := createPrivateFile(tmp); err != nil {
		return BackupResult{}, fmt.Errorf("creating the copy beside %s: %w", dest, err)
	}
	defer os.Remove(tmp) // gone once linked; left only by a failure
	if _, err := src.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return BackupResult{}, fmt.Errorf("copying %s: %w", path, err)
	}
	res, err := checkCopy(ctx, tmp)
	if err != nil {
		return BackupResult{}, err
	}
	// A hard link gives the copy its name only if the name is still free.
	if err := os.Link(tmp, dest); err != nil {
		return BackupResult{}, fmt.Errorf("naming the copy %s: %w", dest, err)
	}
	res.Path = dest
	return res, nil
}

// checkCopy opens a finished copy, checks its integrity and counts what it
// holds.
func checkCopy(ctx context.Context, path string) (BackupResult, error) {
	db, err := openPlain(path)
	if err != nil {
		return BackupResult{}, err
	}
	defer db.Close()
	var verdict string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&verdict); err != nil {
		return BackupResult{}, fmt.Errorf("checking the copy: %w", err)
	}
	if verdict != "ok" {
		return BackupResult{}, fmt.Errorf("the copy failed its integrity check: %s", verdict)
	}
	var res BackupResult
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM tickets), (SELECT count(*) FROM workspaces)`).Scan(&res.Tickets, &res.Workspaces); err != nil {
		return BackupResult{}, fmt.Errorf("counting the copy: %w", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return BackupResult{}, err
	}
	res.Bytes = info.Size()
	return res, nil
}

// openPlain opens a database file for one reading task: no schema, no
// committer, a wait for locks like the store's.
func openPlain(path string) (*sql.DB, error) {
	connector, err := modernc.NewConnector("file:" + path + "?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, errors.Join(fmt.Errorf("opening %s", path), err)
	}
	return db, nil
}
