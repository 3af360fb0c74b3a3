package board

import "slices"

// A transfer carries inboxes: each item with whose inbox it is in and
// whether it was read, after the history of its workspace (an item is an
// event's, by the event's id). These check them as the service writes
// them.

// ValidateTransferredInboxEntry checks one inbox item read from a transfer.
func ValidateTransferredInboxEntry(e InboxEntry) error {
	it := e.Item
	if !isTransferredID(it.ID) {
		return invalid("inbox item id %q must be an event's id: 1-64 letters, digits, '.', '_' or '-'", clip(it.ID))
	}
	if !isInboxRecipient(e.Recipient) {
		return invalid("inbox item %s: recipient %q must be human:<handle>, ai:<name>, or ai:<name>|human:<handle>", it.ID, clip(e.Recipient))
	}
	if !slices.Contains(InboxReasons, it.Reason) {
		return invalid("inbox item %s: reason %q is not one of mention, assigned, waiting, activity", it.ID, clip(it.Reason))
	}
	if err := ValidateSlug(it.Workspace); err != nil {
		return err
	}
	slug, _, err := ParseTicketID(it.TicketID)
	if err != nil {
		return invalid("inbox item %s: %s", it.ID, err.Error())
	}
	if slug != it.Workspace {
		return invalid("inbox item %s: ticket %s is not in workspace %s", it.ID, it.TicketID, it.Workspace)
	}
	if kind, ok := eventKinds[it.EventType]; !ok || !kind.ticket {
		return invalid("inbox item %s: event_type %q is not an event of a ticket", it.ID, clip(it.EventType))
	}
	if err := validateText("title", it.Title, 0, MaxTitle); err != nil {
		return invalid("inbox item %s: %s", it.ID, err.Error())
	}
	if err := ValidateAuthor("author", it.Author); err != nil {
		return err
	}
	if it.OnBehalfOf != "" && !isPersonAuthor(it.OnBehalfOf) {
		return invalid("inbox item %s: on_behalf_of %q must be human:<handle>", it.ID, clip(it.OnBehalfOf))
	}
	if it.At.IsZero() {
		return invalid("inbox item %s: at is missing", it.ID)
	}
	return nil
}

// SameInboxEntry reports whether two inbox items are the same one: whose,
// which event, why. Whether it was read may differ: the target's reader
// may have gone on since an earlier run.
func SameInboxEntry(a, b InboxEntry) bool {
	x, y := a.Item, b.Item
	return a.Recipient == b.Recipient && x.ID == y.ID && x.Reason == y.Reason && x.Workspace == y.Workspace &&
		x.TicketID == y.TicketID && x.Title == y.Title && x.EventType == y.EventType && x.Author == y.Author &&
		x.OnBehalfOf == y.OnBehalfOf && x.At.Equal(y.At)
}
