package sqlite

// SetBatchHooks places the committer's next batches exactly (see hooks in
// commit.go); nil functions leave that point alone.
func SetBatchHooks(s *Store, collect func(n int) bool, beforeCommit func(), committed func(error)) {
	s.hooks.Store(&hooks{collect: collect, beforeCommit: beforeCommit, committed: committed})
}

// ClearBatchHooks returns the committer to taking what is waiting.
func ClearBatchHooks(s *Store) { s.hooks.Store(nil) }
