package board

// A transfer carries a note as it stands, edited or redacted, and the
// note.edited and note.redacted events that keep its earlier text and the
// reason for a redaction; these check them as the service writes them.

// isTransferredNoteID: an id the service gave a note (noteid.go), naming
// the ticket the note is on, or an earlier id of the transferred alphabet.
func isTransferredNoteID(id, ticketID string) bool {
	if isTransferredID(id) {
		return true
	}
	ref, err := ParseNoteID(id)
	return err == nil && ref.At != nil && ref.TicketID == ticketID
}

// validateTransferredNoteEdits checks what a moved note keeps of its edits,
// and that an id naming a time names the note's own: a store finds the
// note by it.
func validateTransferredNoteEdits(n Note) error {
	if ref, err := ParseNoteID(n.ID); err == nil && ref.At != nil && !ref.At.Equal(n.CreatedAt) {
		return invalid("note %s: its id names another time than its created_at", n.ID)
	}
	if n.OnBehalfOf != "" && !isPersonAuthor(n.OnBehalfOf) {
		return invalid("note %s: on_behalf_of %q must be human:<handle>", n.ID, clip(n.OnBehalfOf))
	}
	if n.EditedAt != nil && n.EditedAt.Before(n.CreatedAt) {
		return invalid("note %s: edited_at is before created_at", n.ID)
	}
	if r := n.Redacted; r != nil {
		if n.EditedAt == nil || n.Body != RedactedNoteBody {
			return invalid("note %s: a redacted note shows %q and has edited_at", n.ID, RedactedNoteBody)
		}
		if err := ValidateAuthor("redacted.by", r.By); err != nil {
			return err
		}
		if err := validateText("redacted.reason", r.Reason, 1, MaxReason); err != nil {
			return invalid("note %s: %s", n.ID, err.Error())
		}
		if r.At.IsZero() {
			return invalid("note %s: redacted.at is missing", n.ID)
		}
	}
	return nil
}

// validateNoteEditChanges checks a note.edited event: the body before and
// after, each a note's text.
func validateNoteEditChanges(e Event) error {
	if err := validateText("title", e.Title, 0, MaxTitle); err != nil {
		return invalid("event %s: %s", e.ID, err.Error())
	}
	if len(e.Changes) != 1 || e.Changes[0].Field != "body" || len(e.Fields) != 1 {
		return invalid("event %s: a %s event names the body and keeps its text before and after", e.ID, e.Type)
	}
	for _, v := range []any{e.Changes[0].Before, e.Changes[0].After} {
		text, ok := v.(string)
		if !ok {
			return invalid("event %s: a note's text before and after must be strings", e.ID)
		}
		if err := validateText("body", text, 1, MaxNoteBody); err != nil {
			return invalid("event %s: %s", e.ID, err.Error())
		}
	}
	return nil
}
