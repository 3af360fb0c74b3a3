package sqlite

import (
	"errors"
	"fmt"
	"time"

	modernc "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The priority lock keeps an admin command from being starved by a running
// server on the same file. SQLite's busy handler polls: a server whose
// import commits chunk after chunk leaves the write lock free only for
// moments between transactions, and a second process sleeping between
// polls could miss every one of them until the import ended.
//
// So writers on the file also meet at a lock file beside it (flock; the
// file is named <db>-turn, a name kept so that servers and commands of
// different versions still meet at the same file). A server passes through it, shared and at once, before each of
// its write transactions; an admin command (OpenPriority) holds it
// exclusively around each of its own. Once the command holds it, the
// server's next transaction waits at the lock while the command's
// BEGIN waits out the one transaction in flight (busy_timeout): the
// command gets in after at most one chunk. Both waits are bounded.

// priorityWait bounds how long an admin command waits to get in (at the
// lock, then for the transaction in flight) before it gives up and
// says so; serverWait how long a server waits at the lock for an
// admin command (which holds it only around its own short writes) before
// going on regardless.
var priorityWait = 10 * time.Second // a variable for tests only

const (
	serverWait = 30 * time.Second
	pollEvery  = time.Millisecond
)

// ErrBusy is what an admin command gets when a running server kept the
// store's write lock for longer than it waits. Nothing was written.
var ErrBusy = errors.New("the store is busy: a running server kept its write lock longer than this command waits; nothing was changed, try again")

// priorityLock is the lock file; nil where flock is not available.
type priorityLock struct {
	path string
	fd   int
}

// pass waits until no admin command holds the lock (at most
// serverWait) and goes through.
func (t *priorityLock) pass() {
	if t == nil {
		return
	}
	deadline := time.Now().Add(serverWait)
	for !t.try(false) {
		if time.Now().After(deadline) {
			return // a command that holds it this long is stuck: SQLite's own lock still decides
		}
		time.Sleep(pollEvery)
	}
	t.unlock()
}

// hold takes the lock exclusively, waiting at most priorityWait, and
// returns its release.
func (t *priorityLock) hold() (func(), error) {
	if t == nil {
		return func() {}, nil
	}
	deadline := time.Now().Add(priorityWait)
	for !t.try(true) {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (%s stayed locked)", ErrBusy, t.path)
		}
		time.Sleep(pollEvery)
	}
	return t.unlock, nil
}

// enter is how a write transaction (or the schema's preparation) of this
// store gets in: a server passes through, an admin command holds the
// lock until the returned release.
func (s *Store) enter() (func(), error) {
	if s.priority {
		return s.lockFile.hold()
	}
	s.lockFile.pass()
	return func() {}, nil
}

// busyError says, for an admin command, that SQLite's own wait for the
// write lock ran out: the server's transaction in flight took longer than
// the busy timeout.
func (s *Store) busyError(err error) error {
	var e *modernc.Error
	if s.priority && errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY {
		return fmt.Errorf("%w (%v)", ErrBusy, err)
	}
	return err
}
