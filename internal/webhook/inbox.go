package webhook

import (
	"context"
	"errors"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A subscription may follow one person's inbox: it is sent only the
// events that put an item in that inbox (Subscription.Matches), typically
// as Slack messages to that person's own channel, addressed to them
// (slackInboxText).

// validateInboxHandle checks the form of an inbox subscription's person.
func validateInboxHandle(handle string) error {
	if handle == "" {
		return nil
	}
	if err := board.ValidateHandle(handle); err != nil {
		return board.Errorf(board.CodeInvalid, "inbox %q is not a person's handle (alice, not @alice or human:alice); name a person of the board, or leave inbox out to send every event", handle)
	}
	return nil
}

// checkInbox checks that the person an inbox subscription follows exists.
func (s *Service) checkInbox(ctx context.Context, handle string) error {
	if handle == "" {
		return nil
	}
	if err := validateInboxHandle(handle); err != nil {
		return board.InField("inbox", err)
	}
	if s.cfg.People == nil {
		return board.InField("inbox", board.Errorf(board.CodeInvalid, "inbox: this server keeps no people, so no inbox can be followed; leave inbox out to send every event"))
	}
	_, err := s.cfg.People.GetPerson(ctx, handle)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return board.InField("inbox", board.Errorf(board.CodeInvalid, "inbox: no person has the handle %q; name a person of the board (the People settings list them), or leave inbox out to send every event", handle))
	case err != nil:
		return s.internal(err)
	}
	return nil
}

// slackInboxText is a Slack line addressed to the person whose inbox the
// event is in: "ai:claude needs you on inbox-42: Pick a database", or ""
// when the reason has no line of its own (a note or move on their ticket
// reads as on any channel).
func slackInboxText(ev FeedEvent, reason, url string) string {
	e := ev.Event
	var verb string
	switch reason {
	case board.InboxWaiting:
		verb = "needs you on"
	case board.InboxMention:
		verb = "mentioned you on"
	case board.InboxAssigned:
		verb = "assigned you"
	default:
		return ""
	}
	line := slackEscape(board.DisplayAuthor(e.Author, e.OnBehalfOf)) + " " + verb + " " + slackEscape(e.TicketID)
	if title := ticketTitle(ev); title != "" {
		line += ": " + slackEscape(title)
	}
	if url != "" {
		line += " <" + url + "|open>"
	}
	if reason == board.InboxWaiting && e.Reason != "" {
		line += " — " + slackEscape(e.Reason)
	}
	return line
}
