package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The live board: an open page asks every few seconds whether what it shows
// has changed (static/live.js), with a conditional GET of a change marker
// that the store answers in one small read. A long-lived stream would not
// survive API Gateway and Lambda; a poll answered 304 works the same
// behind both, and costs an idle page one read per marker per poll.

// workspaceChanges answers a board's marker (GET /w/{slug}/changes).
func (s *Server) workspaceChanges(w http.ResponseWriter, r *http.Request) {
	c, err := s.cfg.Service.WorkspaceChanges(r.Context(), board.WorkspaceInput{Workspace: r.PathValue("slug")})
	s.answerChanges(w, r, c, err)
}

// ticketChanges answers a ticket page's marker (GET /tickets/{id}/changes).
func (s *Server) ticketChanges(w http.ResponseWriter, r *http.Request) {
	c, err := s.cfg.Service.TicketChanges(r.Context(), board.TicketIDInput{ID: r.PathValue("id")})
	s.answerChanges(w, r, c, err)
}

// answerChanges sends the marker as a strong ETag, and 304 with no body
// when the page already has it. private keeps shared caches out (the answer
// depends on who may see the workspace); no-cache makes a browser that
// stored it ask again every time, so nobody is shown a stale marker.
func (s *Server) answerChanges(w http.ResponseWriter, r *http.Request, c board.Changes, err error) {
	w.Header().Set("Cache-Control", "private, no-cache")
	if err != nil {
		board.Observe(r.Context(), nil, err) // the request's log line: the code, an internal error's id
		http.Error(w, message(err), statusOf(err))
		return
	}
	etag := `"` + c.Marker + `"`
	w.Header().Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(c)
}

// etagMatches is If-None-Match's weak comparison (RFC 9110, 13.1.2): any
// listed tag with the same opaque value, W/ or not, or "*".
func etagMatches(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// liveMarker is the marker a page is rendered with (its data-live-etag),
// read before the page's content: a change that lands between the two
// shows at the next poll, never is missed. A failure only leaves the
// marker empty, so the first poll fetches the page once.
func liveMarker(read func() (board.Changes, error)) string {
	c, err := read()
	if err != nil {
		return ""
	}
	return c.Marker
}
