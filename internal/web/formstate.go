package web

import (
	"html"
	"html/template"
	"net/http"
	"net/url"
	"slices"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// A refused ticket form comes back as it was sent: what was typed in every
// field, each problem beside its field (aria-invalid, aria-describedby)
// and the first bad field focused, so nothing typed is lost and a person
// sees at once what to fix.

// formState is one form as a page shows it: fresh (typed is nil), or
// refused with what was typed and the problems found.
type formState struct {
	id       string     // which form: "new", "edit", "note"; prefixes its message ids
	typed    url.Values // what was sent; nil on a fresh form
	problems map[string]string
	first    string // the field to focus
	// keepRequestID: the refused call wrote nothing and may be sent again
	// as is (corrected), so the form keeps its request_id: a double click
	// on the corrected form still writes once.
	keepRequestID bool
}

// freshForm is a form as a page first shows it.
func freshForm(id string) *formState { return &formState{id: id} }

// refusedForm is the form id sent in r and refused with err. A problem
// with one of fields (an invalid value, a slug taken) is shown beside it;
// anything else is the page's message (returned as top).
func refusedForm(id string, r *http.Request, err error, fields ...string) (f *formState, top string) {
	f = &formState{id: id, typed: r.PostForm, problems: map[string]string{}}
	if f.typed == nil {
		f.typed = url.Values{}
	}
	// A reused request_id must be replaced to write anything; every other
	// refusal leaves no record under it (validation comes before the
	// ledger) or asks for a retry with the same one (an internal failure).
	f.keepRequestID = board.ErrorCode(err) != board.CodeRequestReused
	if field := board.ErrorField(err); field != "" && slices.Contains(fields, field) {
		f.problems[field] = err.Error()
		f.first = field
		return f, "Nothing was saved: check the marked field."
	}
	return f, message(err)
}

// formStatus is the status of a page that shows a refused form again: 422
// when the person's input was refused (the form is there to correct it;
// docs/decisions.md, "The web board"), the table's status for any other
// refusal.
func formStatus(err error) int {
	if board.ErrorCode(err) == board.CodeInvalid {
		return http.StatusUnprocessableEntity
	}
	return statusOf(err)
}

// Refused says whether the form comes back refused (its panel opens).
func (f *formState) Refused() bool { return f != nil && f.typed != nil }

// Value is what was typed in field when the form was refused, else
// fallback (the stored value, or "" on a new form).
func (f *formState) Value(field, fallback string) string {
	if !f.Refused() {
		return fallback
	}
	return f.typed.Get(field)
}

// RequestID is the request_id the form carries: the one it was sent with
// when that may be sent again, else a fresh one.
func (f *formState) RequestID() string {
	if f.Refused() && f.keepRequestID && f.typed.Get("request_id") != "" {
		return f.typed.Get("request_id")
	}
	return newRequestID()
}

// Problem is the message about field, "" when there is none.
func (f *formState) Problem(field string) string {
	if f == nil {
		return ""
	}
	return f.problems[field]
}

func (f *formState) messageID(field string) string { return f.id + "-" + field + "-error" }

// Mark is the attributes of field's control: marked invalid and described
// by its message when it has a problem, and focused when it is the first.
func (f *formState) Mark(field string) template.HTMLAttr {
	if f.Problem(field) == "" {
		return ""
	}
	a := `aria-invalid="true" aria-describedby="` + f.messageID(field) + `"`
	if field == f.first {
		a += " autofocus"
	}
	return template.HTMLAttr(a)
}

// Message is field's problem as the element that shows it beside the
// field (the one Mark's aria-describedby names), or nothing.
func (f *formState) Message(field string) template.HTML {
	p := f.Problem(field)
	if p == "" {
		return ""
	}
	return template.HTML(`<p class="field-error" id="` + f.messageID(field) + `">` + html.EscapeString(p) + `</p>`)
}
