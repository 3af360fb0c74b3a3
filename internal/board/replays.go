package board

// WasReplayed reports whether a write's result answers a retry (the first
// call's stored result) rather than a write done now; REST turns it into
// Idempotent-Replayed: true.
func (r TicketResult) WasReplayed() bool { return r.Replayed }

// WasReplayed reports whether this move answers a retry with the first
// call's result, as TicketResult.WasReplayed does for a ticket write.
func (r MoveResult) WasReplayed() bool { return r.Replayed }

// WasReplayed reports whether this note answers a retry with the first
// call's result instead of adding the note again.
func (r NoteResult) WasReplayed() bool { return r.Replayed }

// WasReplayed reports whether this workspace write answers a retry with the
// first call's result.
func (r WorkspaceResult) WasReplayed() bool { return r.Replayed }

// WasReplayed reports whether this import answers a retry with the task the
// first call started, rather than starting another import.
func (r ImportResult) WasReplayed() bool { return r.Replayed }

// WasReplayed reports whether this cancellation answers a retry with the
// first call's result.
func (r CancelTaskResult) WasReplayed() bool { return r.Replayed }
