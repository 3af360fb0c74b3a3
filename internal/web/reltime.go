package web

import (
	"html/template"
	"time"
)

// ago shows a moment as a <time> element: its text and title are the
// exact UTC time, which is what a page without JavaScript shows; the
// static time.js rewrites the text as "3 min ago" and the title as the
// exact time in the browser's own time zone.
func ago(t time.Time) template.HTML {
	if t.IsZero() {
		return ""
	}
	u := t.UTC()
	exact := template.HTMLEscapeString(u.Format("2006-01-02 15:04 UTC"))
	return template.HTML(`<time class="ago" datetime="` + u.Format(time.RFC3339) + `" title="` + exact + `">` + exact + `</time>`)
}

// agoPtr is ago of an optional moment (nothing for none).
func agoPtr(t *time.Time) template.HTML {
	if t == nil {
		return ""
	}
	return ago(*t)
}

// left shows the end of a lease as a <time> element: its text is "until"
// the exact UTC time, which is what a page without JavaScript shows; the
// static time.js rewrites it as what is left ("12 min left", or "ended"
// once it has passed, since a lease runs out with no write to refresh the
// page).
func left(t time.Time) template.HTML {
	u := t.UTC()
	exact := template.HTMLEscapeString(u.Format("2006-01-02 15:04 UTC"))
	return template.HTML(`<time class="left" datetime="` + u.Format(time.RFC3339) + `" title="` + exact + `">until ` + exact + `</time>`)
}
