package board

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Who a write tells: the Service decides, when it computes the write, which
// inboxes the event goes to (and which mentions it keeps), so a store only
// writes the items it is handed, with the event, in the same transaction.

// writersPerson is the person a write is for: its author when a person
// writes, the person an agent acts for otherwise ("" for an agent acting
// for nobody).
func writersPerson(p Principal) string {
	if !p.IsAI() {
		return p.Author
	}
	return p.OnBehalfOf
}

// agentInbox is the inbox of an agent named in a write (mentioned, or made
// a ticket's owner): an agent has no account of its own, it is its name and
// its person, so @ai:claude in alice's note (or in a note of alice's claude)
// is alice's claude, never bob's. Without a named person (a local server,
// whose agent acts for nobody and whose person is "human") it is the agent
// alone, which is what such an agent reads.
func agentInbox(agent, person string) string {
	if !isPersonAuthor(person) {
		person = ""
	}
	return Principal{Author: agent, OnBehalfOf: person}.LedgerKey()
}

// knownMentions keeps the names that are someone: a person is someone when
// the people directory knows the handle; an agent always is, as the agent
// of the writer's person. The rest stays plain text. A failed read drops
// the mention rather than the write: the text keeps it either way.
func (s *Service) knownMentions(ctx context.Context, names []string) []string {
	var out []string
	for _, name := range names {
		handle, person := strings.CutPrefix(name, "human:")
		if !person {
			out = append(out, name)
			continue
		}
		if s.people == nil {
			continue
		}
		_, err := s.people.GetPerson(ctx, handle)
		switch {
		case err == nil:
			out = append(out, name)
		case !errors.Is(err, ErrNotFound):
			s.log.WarnContext(ctx, "a mention was not resolved", "handle", handle, "err", err)
		}
	}
	return out
}

// mentionsIn is who ev's own text mentions: a new ticket's body, the part
// of an updated body that mentions someone the old one did not, a note,
// a move's reason.
func mentionsIn(ev Event, note *Note, before *Ticket, after Ticket) []string {
	switch ev.Type {
	case EventTicketCreated:
		return ParseMentions(after.Body)
	case EventTicketUpdated:
		if before == nil || !slices.Contains(ev.Fields, "body") {
			return nil
		}
		old := ParseMentions(before.Body)
		return slices.DeleteFunc(ParseMentions(after.Body), func(m string) bool { return slices.Contains(old, m) })
	case EventTicketMoved:
		return ParseMentions(ev.Reason)
	case EventNoteAdded:
		if note != nil {
			return ParseMentions(note.Body)
		}
	}
	return nil
}

// addressInbox returns the inbox items the event adds, ev.Mentions (set
// by the caller, from mentionsIn) included: the mentioned (people, and agents of the writer's person), the
// ticket's new owner, the people a move to waiting_human waits for (its
// owner, or everyone when it is no one's), and the people who created or
// own a ticket that gets a note or a move. The writer is never told of
// their own write; each recipient gets one item, for the first reason. In
// a workspace hidden from AI no agent is told anything (a workspace hidden
// later hides its items when they are read: visibleItems).
func (s *Service) addressInbox(ctx context.Context, p Principal, ev Event, before *Ticket, after Ticket, policy AIPolicy) []InboxEntry {
	person := writersPerson(p)
	item := InboxItem{ID: ev.ID, Workspace: ev.Workspace, TicketID: ev.TicketID, Title: ev.Title, EventType: ev.Type,
		Author: ev.Author, OnBehalfOf: ev.OnBehalfOf, At: ev.At}
	var entries []InboxEntry
	add := func(recipient, reason string) {
		if recipient == "" || recipient == p.LedgerKey() || len(entries) >= MaxInboxRecipients ||
			policy == PolicyHidden && strings.HasPrefix(recipient, "ai:") ||
			slices.ContainsFunc(entries, func(e InboxEntry) bool { return e.Recipient == recipient }) {
			return
		}
		it := item
		it.Reason = reason
		entries = append(entries, InboxEntry{Recipient: recipient, Item: it})
	}
	// owned is the inbox of whoever the owner names: a person, or the
	// agent of the writer's person ("human", some person, is no one yet).
	owned := func(owner *string) string {
		switch {
		case owner == nil:
			return ""
		case isPersonAuthor(*owner):
			return *owner
		case isAIName(*owner):
			return agentInbox(*owner, person)
		}
		return ""
	}
	for _, m := range ev.Mentions {
		if isAIName(m) {
			m = agentInbox(m, person)
		}
		add(m, InboxMention)
	}
	if before == nil || !equalPtr(before.Owner, after.Owner) {
		add(owned(after.Owner), InboxAssigned)
	}
	if ev.Type == EventTicketMoved && ev.To == string(StatusWaitingHuman) {
		if owner := owned(after.Owner); owner != "" {
			if isPersonAuthor(owner) {
				add(owner, InboxWaiting)
			}
		} else {
			for _, who := range s.everyone(ctx) {
				add(who, InboxWaiting)
			}
		}
	}
	if ev.Type == EventTicketMoved || ev.Type == EventNoteAdded {
		for _, who := range []string{after.CreatedBy, after.CreatedFor, owned(after.Owner)} {
			if isPersonAuthor(who) {
				add(who, InboxActivity)
			}
		}
	}
	return entries
}

// everyone is every enabled person, by handle ("" when there is no
// directory, or it cannot be read: the ticket still waits on the board).
func (s *Service) everyone(ctx context.Context) []string {
	if s.people == nil {
		return nil
	}
	people, err := s.people.ListPeople(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "people were not read for a waiting ticket's inboxes", "err", err)
		return nil
	}
	var out []string
	for _, p := range people {
		if !p.Disabled {
			out = append(out, p.Author())
		}
	}
	return out
}

// policyForInbox is a new ticket's workspace policy when an agent would be
// told of it (mentioned, or its owner), so a hidden workspace tells no
// agent; "" when no agent would be, or the policy cannot be read (the
// store refuses the create in a missing workspace anyway; a failed read
// tells the agent, whose reads still hide the item).
func (s *Service) policyForInbox(ctx context.Context, workspace string, mentioned []string, owner string) AIPolicy {
	if !isAIName(owner) && !slices.ContainsFunc(mentioned, isAIName) {
		return ""
	}
	policy, err := s.store.WorkspacePolicy(ctx, workspace)
	if err != nil {
		return ""
	}
	return policy
}
