package board

// WasReplayed reports whether a write's result answers a retry (the first
// call's stored result) rather than a write done now; REST turns it into
// Idempotent-Replayed: true.
func (r TicketResult) WasReplayed() bool     { return r.Replayed }
func (r MoveResult) WasReplayed() bool       { return r.Replayed }
func (r NoteResult) WasReplayed() bool       { return r.Replayed }
func (r WorkspaceResult) WasReplayed() bool  { return r.Replayed }
func (r ImportResult) WasReplayed() bool     { return r.Replayed }
func (r CancelTaskResult) WasReplayed() bool { return r.Replayed }
