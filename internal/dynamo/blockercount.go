package dynamo

// CountsOpenBlockers says that the tickets this store lists carry their
// count of blockers not done (open_blockers, kept by every relate, unrelate
// and blocker move), so the board's "blocked by N" reads nothing more.
func (s *Store) CountsOpenBlockers() bool { return true }
