// Package sqlite is the embedded store on SQLite through modernc.org/sqlite
// (pure Go, no cgo), in WAL mode, one file: board.Store, and beside it the
// contracts internal/auth, internal/oauth and internal/boardfile own
// (people and tokens, the authorization server's records, moving a board).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	modernc "modernc.org/sqlite"
)

// Store implements board.Store and the contracts beside it. Writes go through one connection, so SQLite's
// single writer never has to wait on its busy timeout inside the process;
// reads use a pool and see committed snapshots (WAL). Concurrent writes are
// group-committed (see commit.go): one disk sync covers a batch.
type Store struct {
	write *sql.DB
	read  *sql.DB
	jobs  chan job
	stop  chan struct{}
	done  chan struct{}
	hooks atomic.Pointer[hooks] // tests only (commit.go)
	// lockFile is where writers of other processes on the file meet
	// (prioritylock.go); priority: this store is an admin command's.
	lockFile *priorityLock
	priority bool
	// mirror answers the similar-tickets lookup from memory
	// (similarmirror.go); dataVersion is the write connection's
	// data_version as of its last batch (only the committer touches it).
	mirror      *titleMirror
	dataVersion int64
}

// Options changes how a store is opened.
type Options struct {
	// Priority is for admin commands run beside a server on the same file:
	// each write gets in after at most the server's transaction in flight,
	// or fails with ErrBusy after a bounded wait (prioritylock.go).
	Priority bool
}

var _ board.Store = (*Store)(nil)

// FileName is the database file inside the data directory.
const FileName = "ledger.db"

// OpenDir opens (creating if needed) the store in dir/ledger.db.
func OpenDir(ctx context.Context, dir string) (*Store, error) {
	return OpenDirWith(ctx, dir, Options{})
}

// OpenDirWith is OpenDir with options.
func OpenDirWith(ctx context.Context, dir string, o Options) (*Store, error) {
	if err := makePrivateDir(dir); err != nil {
		return nil, fmt.Errorf("creating data directory %s: %w", dir, err)
	}
	return OpenWith(ctx, filepath.Join(dir, FileName), o)
}

// Open opens (creating if needed) the database at path, applies the schema
// and seeds the default workspaces.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*Store, error) {
	q := url.Values{}
	busy := 10 * time.Second
	if o.Priority {
		busy = priorityWait // the whole wait an admin command accepts
	}
	for _, p := range []string{
		"journal_mode(WAL)",
		fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()),
		// FULL: an acknowledged write survives power loss, not only a crash.
		"synchronous(FULL)",
		// Statement journals (a write with triggers needs one to undo itself)
		// and temporary tables stay in memory: a write never needs a file
		// beside the database and its WAL, so a full disk fails it only at
		// COMMIT, where the group commit expects failures.
		"temp_store(2)",
		"foreign_keys(1)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate") // take the write lock at BEGIN: no upgrade deadlocks
	if err := registerFunctions(); err != nil {
		return nil, err
	}
	// Created here rather than by SQLite, which would make it 0644.
	if err := createPrivateFile(path); err != nil {
		return nil, fmt.Errorf("creating the store's file: %w", err)
	}
	connector, err := modernc.NewConnector("file:" + path + "?" + q.Encode())
	if err != nil {
		return nil, err
	}
	// Each connection keeps its statements prepared (stmtcache.go) and
	// counts them for the request they serve (observe.go).
	write := sql.OpenDB(countingConnector{cachingConnector{connector}})
	write.SetMaxOpenConns(1)
	read := sql.OpenDB(countingConnector{cachingConnector{connector}})
	read.SetMaxOpenConns(8)
	// Keep every read connection open between reads (database/sql keeps
	// two by default): a connection closed and opened again under load
	// applies its pragmas, parses the schema, and prepares its cached
	// statements and FTS5's own ones again, which cost more CPU than the
	// reads themselves. Idle connections hold no snapshot and no lock.
	read.SetMaxIdleConns(8)
	lockFile, err := openPriorityLock(path)
	if err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("opening %s's lock file: %w", path, err)
	}
	s := &Store{write: write, read: read, jobs: make(chan job), stop: make(chan struct{}), done: make(chan struct{}),
		lockFile: lockFile, priority: o.Priority, mirror: newTitleMirror()}
	release, err := s.enter()
	if err == nil {
		err = s.busyError(s.migrate(ctx))
		release()
	}
	if err != nil {
		write.Close()
		read.Close()
		lockFile.close()
		return nil, fmt.Errorf("preparing %s: %w", path, err)
	}
	s.startMirror(ctx)
	go s.committer()
	return s, nil
}

// Close stops the committer after the batch in flight and closes both pools.
func (s *Store) Close() error {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	return errors.Join(s.write.Close(), s.read.Close(), s.lockFile.close())
}

// timeFormat is fixed-width so stored times compare correctly as text.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) { return time.Parse(timeFormat, s) }

func nullTime(t *time.Time) sql.NullString {
	if t == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: formatTime(*t), Valid: true}
}

func nullString(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

func stringPtr(ns sql.NullString) *string {
	if !ns.Valid {
		return nil
	}
	return &ns.String
}
