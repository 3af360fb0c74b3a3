package web

import (
	"net/http"
	"net/url"
)

// Every URL a form posts to answers GET as well, with the page that holds
// the form (a 303 to it). Without JavaScript a refused form leaves the
// POST's URL in the address bar; reloading it from there, bookmarking it
// or sharing it is a GET, and that must lead back to the form, never to a
// bare "404 page not found". (With htmx the refused page replaces the URL
// with the page's own, HX-Replace-Url.)

// formPages are the GET routes of the POST URLs, each with its page.
var formPages = map[string]func(r *http.Request) string{
	"GET /workspaces":                       func(*http.Request) string { return "/" },
	"GET /w/{slug}/tickets":                 func(r *http.Request) string { return "/w/" + url.PathEscape(r.PathValue("slug")) },
	"GET /tickets/{id}/edit":                ticketPageOf,
	"GET /tickets/{id}/move":                ticketPageOf,
	"GET /tickets/{id}/assign":              ticketPageOf,
	"GET /tickets/{id}/relations":           func(r *http.Request) string { return ticketPageOf(r) + "#relations" },
	"GET /tickets/{id}/relations/remove":    func(r *http.Request) string { return ticketPageOf(r) + "#relations" },
	"GET /tickets/{id}/notes":               func(r *http.Request) string { return ticketPageOf(r) + "#notes" },
	"GET /tickets/{id}/notes/{note}/edit":   func(r *http.Request) string { return ticketPageOf(r) + "#notes" },
	"GET /tickets/{id}/notes/{note}/redact": func(r *http.Request) string { return ticketPageOf(r) + "#notes" },
	"GET /people/{handle}/disable":          peoplePageOf,
	"GET /people/{handle}/enable":           peoplePageOf,
	"GET /people/{handle}/invite":           peoplePageOf,
	"GET /invitations/{hash}/revoke":        peoplePageOf,
	"GET /tokens/{id}/revoke":               func(*http.Request) string { return "/tokens" },
	"GET /inbox/read":                       func(*http.Request) string { return inboxPath },
	"GET /tasks/{id}/cancel":                func(*http.Request) string { return "/tasks" },
	"GET /agents/{id}/revoke":               func(*http.Request) string { return "/agents" },
}

func ticketPageOf(r *http.Request) string { return "/tickets/" + url.PathEscape(r.PathValue("id")) }

func peoplePageOf(*http.Request) string { return "/people" }

// addFormPages routes the GETs of formPages on private (pages that need a
// person) and GET /signout on public.
func addFormPages(public, private *http.ServeMux, withOAuth bool) {
	for pattern, page := range formPages {
		if pattern == "GET /agents/{id}/revoke" && !withOAuth {
			continue
		}
		private.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { seeOther(w, r, page(r)) })
	}
	public.HandleFunc("GET /signout", func(w http.ResponseWriter, r *http.Request) { seeOther(w, r, "/") })
}
