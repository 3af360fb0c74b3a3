package board

import (
	"slices"
	"strings"
)

// InboxAddress is one inbox an event went to: the recipient's key (an
// InboxEntry's Recipient) and the reason (InboxMention, InboxAssigned,
// InboxWaiting or InboxActivity).
type InboxAddress struct {
	To     string `json:"to" jsonschema:"whose inbox: human:<handle>, or an agent with its person (ai:claude|human:alice)"`
	Reason string `json:"reason" jsonschema:"why: mention, assigned, waiting or activity"`
}

// InboxReasons are the reasons an item is in an inbox.
var InboxReasons = []string{InboxMention, InboxAssigned, InboxWaiting, InboxActivity}

// addressesOf is what an event keeps of the items it adds.
func addressesOf(entries []InboxEntry) []InboxAddress {
	var out []InboxAddress
	for _, e := range entries {
		out = append(out, InboxAddress{To: e.Recipient, Reason: e.Item.Reason})
	}
	return out
}

// InboxReason is why the event is in the recipient's inbox (an
// InboxEntry's Recipient: "human:alice"), or "" when it is not. It reads
// only the event: the addressing was decided, and kept on the event, by
// the write that made it, so whatever reads events (the webhook senders)
// follows the inbox's own rule.
func (e Event) InboxReason(recipient string) string {
	i := slices.IndexFunc(e.Inbox, func(a InboxAddress) bool { return a.To == recipient })
	if i < 0 {
		return ""
	}
	return e.Inbox[i].Reason
}

// isInboxRecipient: a person, an agent, or an agent with its person.
func isInboxRecipient(s string) bool {
	agent, person, withPerson := strings.Cut(s, ledgerKeySeparator)
	if withPerson {
		return isAIName(agent) && isPersonAuthor(person)
	}
	return isPersonAuthor(s) || isAIName(s)
}

// validateTransferredInbox checks the addressing a moved event keeps.
func validateTransferredInbox(e Event) error {
	if len(e.Inbox) > MaxInboxRecipients {
		return invalid("event %s: inbox names %d recipients; a write tells at most %d", e.ID, len(e.Inbox), MaxInboxRecipients)
	}
	for i, a := range e.Inbox {
		if !isInboxRecipient(a.To) || !slices.Contains(InboxReasons, a.Reason) {
			return invalid("event %s: inbox[%d] must name a recipient (human:<handle>, ai:<name>, or ai:<name>|human:<handle>) and a reason (%s)", e.ID, i, strings.Join(InboxReasons, ", "))
		}
		if slices.ContainsFunc(e.Inbox[:i], func(b InboxAddress) bool { return b.To == a.To }) {
			return invalid("event %s: inbox names %s twice; an event is one item of an inbox", e.ID, clip(a.To))
		}
	}
	return nil
}
