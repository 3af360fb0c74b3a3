package tasks

// Stopped reports whether the runner was closed: it starts no task any
// more (/healthz says so).
func (r *Local) Stopped() bool { return r.root.Err() != nil }
