package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The header's Inbox link carries the signed-in person's unread count,
// kept current by the live mechanism every page already has (live.js): the
// link follows a change marker of the inbox like a board follows its
// workspace's, and on a change fetches a page that holds the new link.

// inboxBadge is the header's Inbox link as a page renders it.
type inboxBadge struct {
	// Marker is the inbox's change marker when the count was read.
	Marker string
	Unread int
	Label  string // Unread as shown: "99+" from board.UnreadCountCap on
	// LivePage is the page live.js fetches for the new link; "" fetches
	// the page itself (the Inbox, whose list follows the same marker, so
	// one fetch brings both).
	LivePage string
}

// inboxCountPath is the small page that holds the Inbox link, which every
// other page fetches when the marker changes: the page's own content may
// cost far more to read again than the count.
const inboxCountPath = "/inbox/count"

// inboxMarker reads the caller's newest unread item and unread count: the
// marker changes when an item arrives (it is the newest unread) and when
// items are marked read (the count drops, or the newest unread changes
// once the count is at its cap). One page of one item and the capped
// count: the store's two small reads.
func (s *Server) inboxMarker(ctx context.Context) (marker string, list board.InboxList, err error) {
	list, err = s.cfg.Service.ListInbox(ctx, board.ListInboxInput{UnreadOnly: true, Limit: 1})
	if err != nil {
		return "", list, err
	}
	newest := ""
	if len(list.Items) > 0 {
		newest = list.Items[0].ID
	}
	return "i-" + newest + "-" + strconv.Itoa(list.Unread), list, nil
}

// readInboxBadge is the header's link for the caller, or nil when the
// inbox cannot be read now: the page still renders, with a plain link.
func (s *Server) readInboxBadge(ctx context.Context, livePage string) *inboxBadge {
	marker, list, err := s.inboxMarker(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "the inbox's unread count was not read for the header", "err", err)
		return nil
	}
	return &inboxBadge{Marker: marker, Unread: list.Unread, Label: list.UnreadLabel, LivePage: livePage}
}

// inboxChanges answers the inbox's marker (GET /inbox/changes), as the
// board's markers are answered: an ETag, and 304 while it holds.
func (s *Server) inboxChanges(w http.ResponseWriter, r *http.Request) {
	marker, _, err := s.inboxMarker(r.Context())
	s.answerChanges(w, r, board.Changes{Marker: marker}, err)
}

// inboxCountPage is the unread count on a page of its own (GET
// /inbox/count): what live.js fetches for the header's link.
func (s *Server) inboxCountPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "inboxcount", page{Title: "Inbox"})
}
