package sqlite

import "time"

// SetBatchHooks places the committer's next batches exactly (see hooks in
// commit.go); nil functions leave that point alone.
func SetBatchHooks(s *Store, collect func(n int) bool, beforeCommit func(), committed func(error)) {
	s.hooks.Store(&hooks{collect: collect, beforeCommit: beforeCommit, committed: committed})
}

// ClearBatchHooks returns the committer to taking what is waiting.
func ClearBatchHooks(s *Store) { s.hooks.Store(nil) }

// SetPriorityWait shortens how long admin commands wait, for a test.
func SetPriorityWait(d time.Duration) (restore func()) {
	old := priorityWait
	priorityWait = d
	return func() { priorityWait = old }
}

// SetExportPage changes how many rows an export reads at a time, so a
// test's small board crosses pages.
func SetExportPage(n int) (restore func()) {
	old := exportPage
	exportPage = n
	return func() { exportPage = old }
}
