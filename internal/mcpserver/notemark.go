package mcpserver

import "github.com/ticket-ledger/ticket-ledger/internal/board"

// noteMark is what a note's heading adds when its text changed since it
// was written: the history keeps the earlier text, or a redaction's reason.
func noteMark(n board.Note) string {
	switch {
	case n.Redacted != nil:
		reason, _ := clipChars(oneLine(n.Redacted.Reason), 200)
		return " (redacted by " + n.Redacted.By + ": " + reason + ")"
	case n.EditedAt != nil:
		return " (edited " + stamp(*n.EditedAt) + ")"
	}
	return ""
}
