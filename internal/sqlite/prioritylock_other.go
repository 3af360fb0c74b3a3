//go:build !unix

package sqlite

// Without flock the priority lock is left out: SQLite's busy timeout alone
// arbitrates between processes.
func openPriorityLock(string) (*priorityLock, error) { return nil, nil }

func (t *priorityLock) try(bool) bool { return true }
func (t *priorityLock) unlock()       {}
func (t *priorityLock) close() error  { return nil }
