package web

import (
	"net/http"
	"net/url"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The Inbox: what happened that concerns the signed-in person (mentions,
// tickets assigned to them, notes and moves on their tickets, tickets
// waiting for them), newest first, read or unread, and what waits for them
// now. Reading and marking go through the same use cases as REST and MCP
// (ListInbox, MarkInboxRead), so the page shows exactly what list_inbox
// answers and a mark is written once per form.

// inboxPageSize is how many items the Inbox shows at a time.
const inboxPageSize = 30

// inboxPath is the Inbox's own address; marks return to it.
const inboxPath = "/inbox"

type inboxData struct {
	Items      []board.InboxItem
	Unread     int
	Label      string // Unread as shown ("99+")
	UnreadOnly bool
	Older      bool   // this page continues from a cursor
	Newest     string // the first page, same filter
	Next       string // the older page, or "" at the oldest
	// Here is this page's address, where a mark returns; Live says the
	// list follows the inbox's marker (the newest page: new items never
	// reach an older one).
	Here    string
	Live    bool
	Waiting waitingData
}

func (s *Server) inboxPage(w http.ResponseWriter, r *http.Request) {
	s.showInbox(w, r, r.URL.Query(), http.StatusOK, "")
}

// showInbox renders the Inbox for the query (unread, cursor), with a
// refused mark's message when there is one.
func (s *Server) showInbox(w http.ResponseWriter, r *http.Request, q url.Values, status int, refusal string) {
	ctx := r.Context()
	in := board.ListInboxInput{UnreadOnly: q.Get("unread") != "", Cursor: q.Get("cursor"), Limit: inboxPageSize}
	// The header's link and its marker first, so a change that lands
	// while the list is read shows at the next poll; on this page the
	// link refreshes from the page itself, list and all.
	badge := s.inboxPageBadge(ctx)
	list, err := s.cfg.Service.ListInbox(ctx, in)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	waiting, err := s.waitingFor(ctx)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := inboxData{Items: list.Items, Unread: list.Unread, Label: list.UnreadLabel, UnreadOnly: in.UnreadOnly,
		Older: in.Cursor != "", Newest: inboxURL(in.UnreadOnly, ""), Here: inboxURL(in.UnreadOnly, in.Cursor),
		Live: in.Cursor == "" && badge != nil, Waiting: waiting}
	if list.NextCursor != nil {
		d.Next = inboxURL(in.UnreadOnly, *list.NextCursor)
	}
	s.render(w, r, status, "inbox", page{Title: "Inbox", Error: refusal, Inbox: badge, Data: d})
}

// inboxURL is the Inbox, unread items only or all, from a cursor.
func inboxURL(unreadOnly bool, cursor string) string {
	v := url.Values{}
	if unreadOnly {
		v.Set("unread", "1")
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(v) == 0 {
		return inboxPath
	}
	return inboxPath + "?" + v.Encode()
}

// markInboxRead is the Inbox's "Mark read" (ids) and "Mark all read"
// (all): MarkInboxRead under the form's request_id, so a double click
// or a resent form marks once and answers the first answer.
func (s *Server) markInboxRead(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm() // a body that does not parse leaves the fields empty, which the use case refuses
	in := board.MarkInboxReadInput{RequestID: r.PostForm.Get("request_id"), All: r.PostForm.Get("all") != "", IDs: r.PostForm["ids"]}
	res, err := s.cfg.Service.MarkInboxRead(r.Context(), in)
	board.Observe(r.Context(), res, err)
	back := inboxBack(r.PostForm.Get("back"))
	if err != nil {
		refusedPage(w, back.String())
		s.showInbox(w, r, back.Query(), statusOf(err), message(err))
		return
	}
	target := back.String()
	if in.All {
		target = withFlash(target, "inbox-read")
	}
	seeOther(w, r, target)
}

// inboxBack is where a mark returns: the Inbox page the form was on (its
// filter and cursor), never another address.
func inboxBack(raw string) *url.URL {
	u, err := url.Parse(localPath(raw, inboxPath))
	if err != nil || u.Path != inboxPath {
		return &url.URL{Path: inboxPath}
	}
	q := u.Query()
	return &url.URL{Path: inboxPath, RawQuery: withoutFlash(q)}
}

// waitingMoved sends the old "Waiting for me" address to the Inbox, which
// shows what it showed, so bookmarks keep working.
func waitingMoved(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, inboxPath, http.StatusMovedPermanently)
}

// inboxWhat says what an item's event did, for its reason, in a few words
// after who did it.
func inboxWhat(it board.InboxItem) string {
	switch it.Reason {
	case board.InboxMention:
		switch it.EventType {
		case board.EventTicketCreated:
			return "mentioned you in a new ticket"
		case board.EventTicketUpdated:
			return "mentioned you in the description"
		case board.EventTicketMoved:
			return "mentioned you in a move's reason"
		case board.EventNoteAdded:
			return "mentioned you in a note"
		}
		return "mentioned you"
	case board.InboxAssigned:
		if it.EventType == board.EventTicketCreated {
			return "made you the owner of a new ticket"
		}
		return "assigned a ticket to you"
	case board.InboxWaiting:
		return "moved a ticket to " + statusLabels[board.StatusWaitingHuman]
	case board.InboxActivity:
		switch it.EventType {
		case board.EventNoteAdded:
			return "added a note to your ticket"
		case board.EventTicketMoved:
			return "moved your ticket"
		}
	}
	return it.EventType
}

// inboxReasons name why an item is in the inbox, as its chip says.
var inboxReasons = map[string]string{
	board.InboxMention:  "Mention",
	board.InboxAssigned: "Assigned",
	board.InboxWaiting:  "Waiting",
	board.InboxActivity: "Activity",
}
