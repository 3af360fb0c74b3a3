package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

//go:embed templates
var templateFS embed.FS

// pages are parsed once, on the first page a process renders, not at start:
// a Lambda instance that only serves MCP never parses them.
var pages = sync.OnceValues(parsePages)

func parsePages() (map[string]*template.Template, error) {
	// The layout and the parts pages share (templates/parts) go into
	// every page.
	layout, err := template.New("layout.html").Funcs(funcs).Funcs(cardFuncs).ParseFS(templateFS, "templates/layout.html", "templates/parts/*.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

var statusLabels = map[board.Status]string{
	board.StatusCandidate:    "Candidate",
	board.StatusDoing:        "Doing",
	board.StatusWaitingHuman: "Waiting for a person",
	board.StatusWaitingAI:    "Waiting for AI",
	board.StatusDone:         "Done",
	board.StatusHold:         "On hold",
}

var policyLabels = map[board.AIPolicy]string{
	board.PolicyReadWrite: "AI reads and writes",
	board.PolicyReadOnly:  "AI reads only",
	board.PolicyHidden:    "hidden from AI",
}

var funcs = template.FuncMap{
	"relList":     newRelationList,
	"parentList":  parentList,
	"asset":       assetURL,
	"markdown":    renderMarkdown,
	"statusLabel": func(s board.Status) string { return statusLabels[s] },
	"policyLabel": func(p board.AIPolicy) string { return policyLabels[p] },
	"statuses":    func() []board.Status { return board.Statuses },
	"priorities":  func() []board.Priority { return board.Priorities },
	"policies": func() []board.AIPolicy {
		return []board.AIPolicy{board.PolicyReadWrite, board.PolicyReadOnly, board.PolicyHidden}
	},
	"requestID": newRequestID,
	"ago":       ago,
	"left":      left,
	"ownerField": func(o ownerPicker, f *formState, current string) ownerField {
		return ownerField{Picker: o, Form: f, Current: current}
	},
	"agoPtr": agoPtr,
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"whenPtr": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
	"join":      strings.Join,
	"inboxWhat": inboxWhat,
	"inboxReason": func(reason string) string {
		if l, ok := inboxReasons[reason]; ok {
			return l
		}
		return reason
	},
	"total":     total,
	"who":       board.DisplayAuthor,
	"links":     linksText,
	"eventText": eventText,
	"ownNote":   ownNote,
	"countOf":   func(w board.Workspace, s board.Status) int { return w.Counts[s] },
	"hasPrefix": strings.HasPrefix,
	"hostOf": func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		return u.Host
	},
}

// newRequestID is a fresh request_id for one rendered form.
func newRequestID() string { return "web-" + uuid.Must(uuid.NewV7()).String() }

func total(counts map[board.Status]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// eventText says what an event did, in a few words.
func eventText(e board.Event) string {
	switch e.Type {
	case board.EventTicketCreated:
		return "created the ticket"
	case board.EventTicketUpdated:
		return "changed " + changedText(e)
	case board.EventTicketMoved:
		s := fmt.Sprintf("moved it from %s to %s", statusLabels[board.Status(e.From)], statusLabels[board.Status(e.To)])
		if e.Holder != "" {
			s += ", ending the claim of " + e.Holder
		}
		if e.Reason != "" {
			s += ": " + e.Reason
		}
		return s
	case board.EventNoteAdded:
		return "added a note"
	case board.EventNoteEdited:
		return "edited a note"
	case board.EventNoteRedacted:
		return "redacted a note: " + e.Reason
	case board.EventTicketClaimed:
		return "claimed it"
	case board.EventTicketClaimRenewed:
		return "renewed their claim"
	case board.EventTicketReleased, board.EventTicketClaimBroken:
		s := "released it"
		if e.Type == board.EventTicketClaimBroken {
			s = "broke the claim of " + e.Holder
		}
		if e.To != "" {
			s += fmt.Sprintf(" and moved it from %s to %s", statusLabels[board.Status(e.From)], statusLabels[board.Status(e.To)])
		}
		return s
	case board.EventTicketRelated:
		return "linked it: " + board.RelationPhrase(e.Relation, e.Other)
	case board.EventTicketUnrelated:
		return "removed the link: " + board.RelationPhrase(e.Relation, e.Other)
	case board.EventWorkspaceCreated:
		return "created the workspace"
	case board.EventWorkspaceUpdated:
		return "changed the workspace's " + strings.Join(e.Fields, ", ")
	}
	return e.Type
}

// linksText is a ticket's links as the edit form shows them, one a line:
// "<url> [title]" for URLs, "<kind> <ref> [| title]" otherwise.
func linksText(links []board.Link) string {
	var b strings.Builder
	for _, l := range links {
		if l.Kind == "url" {
			b.WriteString(l.Ref)
		} else {
			b.WriteString(l.Kind + " " + l.Ref)
		}
		if l.Title != "" {
			b.WriteString(" | " + l.Title)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// page is what every template gets.
type page struct {
	Title  string
	Me     board.Principal
	SignIn bool   // required mode: show the signed-in person and sign-out
	OAuth  bool   // OAuth is served: show Connected agents
	Error  string // a refused form's message
	Notice string
	// Inbox is the header's Inbox link with the unread count; render
	// reads it for a signed-in person when the page has not.
	Inbox *inboxBadge
	Data  any
}

// render writes a page; a template failure is a 500 with nothing half-sent.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	set, err := pages()
	if err != nil {
		s.log.Error("parsing templates", "err", err)
		http.Error(w, "the board's templates are broken", http.StatusInternalServerError)
		return
	}
	t, ok := set[name]
	if !ok {
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	p.Me = board.PrincipalFrom(r.Context())
	if p.Me.Author != "" && p.Inbox == nil {
		p.Inbox = s.countBadge(r.Context())
	}
	if p.Notice == "" {
		p.Notice = flashFor(r.URL)
	}
	p.SignIn = s.cfg.Resolver.Mode() != "loopback"
	p.OAuth = s.cfg.OAuth != nil
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", p); err != nil {
		s.log.Error("rendering a page", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Pages carry fresh request_ids and personal data: never cached.
	h.Set("Cache-Control", "no-store")
	if r.Header.Get("HX-Request") == "true" && r.Method == http.MethodGet {
		// After a form's redirect, htmx shows this page: put its URL in
		// the address bar, as a browser without JavaScript would.
		h.Set("HX-Push-Url", r.URL.RequestURI())
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// changedText names an update's fields, with the before and after values
// the event keeps (title, priority, owner, due, tags): "priority (normal →
// high), body".
func changedText(e board.Event) string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f
		for _, c := range e.Changes {
			if c.Field == f {
				parts[i] = fmt.Sprintf("%s (%s → %s)", f, changeValue(c.Before), changeValue(c.After))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// changeValue is one value of a change as a person reads it.
func changeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case string:
		return v
	case []string:
		return strings.Join(v, " ")
	case []any:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = fmt.Sprint(s)
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v)
}
