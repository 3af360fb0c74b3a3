//go:build !unix

package sqlite

// Without flock the turnstile is left out: SQLite's busy timeout alone
// arbitrates between processes.
func openTurnstile(string) (*turnstile, error) { return nil, nil }

func (t *turnstile) try(bool) bool { return true }
func (t *turnstile) unlock()       {}
func (t *turnstile) close() error  { return nil }
