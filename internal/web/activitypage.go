package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// activityPageSize is how many events the Activity page shows at a time:
// a screenful or two, read newest first.
const activityPageSize = 50

// activityData is what the Activity page shows.
type activityData struct {
	Workspace board.Workspace
	By        string // the author filter
	Kind      string
	Kinds     []string
	Filtered  bool
	Older     bool // this page continues from a cursor
	Partial   bool // the page stopped at the filter's scan bound
	Events    []board.Event
	Newest    string // the page without a cursor, same filters
	Next      string // the older page, or "" at the oldest
	// Live is the change marker the newest page was rendered at ("" on an
	// older page, which new events never reach); Here is the page live.js
	// fetches again on a change.
	Live, Here string
}

// activityPage shows a workspace's activity, newest first, a page at a
// time, filtered by author and kind. The list reads the workspace's policy
// like every other read, so an unknown workspace is the usual not-found
// page.
func (s *Server) activityPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	slug := r.PathValue("slug")
	q := r.URL.Query()
	in := board.ListActivityInput{Workspace: slug, By: strings.TrimSpace(q.Get("by")), Kind: q.Get("kind"),
		Cursor: q.Get("cursor"), Limit: activityPageSize}
	var live string
	if in.Cursor == "" { // read before the list, so a change between the two shows at the first poll
		live = liveMarker(func() (board.Changes, error) {
			return s.cfg.Service.WorkspaceChanges(ctx, board.WorkspaceInput{Workspace: slug})
		})
	}
	list, err := s.cfg.Service.ListActivity(ctx, in)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	all, err := s.cfg.Service.ListWorkspaces(ctx)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := activityData{Workspace: board.Workspace{Slug: slug, Name: slug}, By: in.By, Kind: in.Kind, Kinds: board.EventKinds,
		Filtered: in.By != "" || in.Kind != "", Older: in.Cursor != "", Partial: list.Partial, Events: list.Events}
	for _, ws := range all.Workspaces {
		if ws.Slug == slug {
			d.Workspace = ws
		}
	}
	d.Newest = activityURL(slug, in.By, in.Kind, "")
	d.Live, d.Here = live, d.Newest
	if list.NextCursor != nil {
		d.Next = activityURL(slug, in.By, in.Kind, *list.NextCursor)
	}
	s.render(w, r, http.StatusOK, "activity", page{Title: "Activity of " + d.Workspace.Name, Data: d})
}

// activityURL is the Activity page with these filters, from a cursor.
func activityURL(slug, by, kind, cursor string) string {
	v := url.Values{}
	for k, val := range map[string]string{"by": by, "kind": kind, "cursor": cursor} {
		if val != "" {
			v.Set(k, val)
		}
	}
	u := "/w/" + slug + "/activity"
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}
