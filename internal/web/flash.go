package web

import (
	"net/url"
	"strings"
)

// A write's redirect may ask the next page to say that it worked
// (?done=<key>), so a person who saved, revoked or signed out sees it was
// done without the form's page having to render the next one. Only these
// keys show anything: the text is never taken from the URL.
var flashes = map[string]string{
	"saved":               "Saved.",
	"signed-out":          "Signed out.",
	"revoked":             "Token revoked: it is refused from its next call on.",
	"disabled":            "Disabled: signed out everywhere at once.",
	"enabled":             "Enabled.",
	"invitation-revoked":  "Invitation revoked.",
	"disconnected":        "Disconnected.",
	"webhook-paused":      "Webhook paused: events wait for it to be resumed.",
	"webhook-resumed":     "Webhook resumed: the events it held are sent now.",
	"webhook-tested":      "Test event delivered.",
	"webhook-test-failed": "The test event was not taken: see its line in the delivery log.",
	"webhook-deleted":     "Webhook deleted.",
	"note-edited":         "Note saved; the history keeps its earlier text.",
	"note-redacted":       "Note redacted.",
	"related":             "Link added.",
	"unrelated":           "Link removed.",
	"inbox-read":          "Everything in your inbox is marked read.",
}

// flashParam is the query parameter that names a flash.
const flashParam = "done"

// withFlash is target with the flash key added to its query.
func withFlash(target, key string) string {
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	return target + sep + flashParam + "=" + url.QueryEscape(key)
}

// flashFor is the message a page's URL asks for, or "".
func flashFor(u *url.URL) string { return flashes[u.Query().Get(flashParam)] }

// withoutFlash is a query without the flash, for URLs a page hands on
// (where a form returns): the message is for this page view only.
func withoutFlash(q url.Values) string {
	q.Del(flashParam)
	return q.Encode()
}
