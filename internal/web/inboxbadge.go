package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The header's Inbox link carries the signed-in person's unread count,
// kept current by the live mechanism every page already has (live.js): the
// link follows a change marker like a board follows its workspace's, and
// on a change fetches a page that holds the new link.
//
// Two markers, for two costs. Every page's link follows the count alone
// (GET /inbox/count/changes, one store read a poll): it changes when an
// item arrives and when items are marked read, and while it holds, the
// number shown is right. The Inbox page follows the inbox's marker (GET
// /inbox/changes): the newest unread item with the count, so its list also
// shows an item that arrived while another was marked read, or past the
// count's cap. There the link follows that marker too, and one fetch of
// the page brings both.

// inboxBadge is the header's Inbox link as a page renders it.
type inboxBadge struct {
	// MarkerURL is the marker the link follows, Marker its value when
	// the count was read.
	MarkerURL, Marker string
	Unread            int
	Label             string // Unread as shown: "99+" from board.UnreadCountCap on
	// LivePage is the page live.js fetches for the new link; "" fetches
	// the page itself.
	LivePage string
}

const (
	// inboxCountPath is the small page that holds the Inbox link, which
	// every other page fetches when the count changes: the page's own
	// content may cost far more to read again than the count.
	inboxCountPath = "/inbox/count"
	// inboxCountChanges and inboxChangesPath are the two markers.
	inboxCountChanges = "/inbox/count/changes"
	inboxChangesPath  = "/inbox/changes"
)

// countMarker is the count's marker.
func countMarker(n int) string { return "u-" + strconv.Itoa(n) }

// inboxMarker is the Inbox page's marker: the newest unread item and the
// unread count (ListInbox's one-item page and its capped count).
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

// countBadge is the header's link on every page but the Inbox, or nil
// when the count cannot be read now: the page still renders, with a plain
// link.
func (s *Server) countBadge(ctx context.Context) *inboxBadge {
	n, err := s.cfg.Service.UnreadCount(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "the inbox's unread count was not read for the header", "err", err)
		return nil
	}
	return &inboxBadge{MarkerURL: inboxCountChanges, Marker: countMarker(n), Unread: n, Label: board.UnreadLabel(n), LivePage: inboxCountPath}
}

// inboxPageBadge is the header's link on the Inbox page, read before the
// page's list so a change that lands in between shows at the next poll.
func (s *Server) inboxPageBadge(ctx context.Context) *inboxBadge {
	marker, list, err := s.inboxMarker(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "the inbox's marker was not read for the header", "err", err)
		return nil
	}
	return &inboxBadge{MarkerURL: inboxChangesPath, Marker: marker, Unread: list.Unread, Label: list.UnreadLabel}
}

// inboxCountChanged answers the count's marker (GET /inbox/count/changes),
// as the board's markers are answered: an ETag, and 304 while it holds.
func (s *Server) inboxCountChanged(w http.ResponseWriter, r *http.Request) {
	n, err := s.cfg.Service.UnreadCount(r.Context())
	s.answerChanges(w, r, board.Changes{Marker: countMarker(n)}, err)
}

// inboxChanges answers the Inbox page's marker (GET /inbox/changes).
func (s *Server) inboxChanges(w http.ResponseWriter, r *http.Request) {
	marker, _, err := s.inboxMarker(r.Context())
	s.answerChanges(w, r, board.Changes{Marker: marker}, err)
}

// inboxCountPage is the unread count on a page of its own (GET
// /inbox/count): what live.js fetches for the header's link.
func (s *Server) inboxCountPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "inboxcount", page{Title: "Inbox"})
}
