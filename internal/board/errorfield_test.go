package board

import (
	"strings"
	"testing"
)

// Validation names the field an invalid input is about, so a form can put
// the message next to it; the message every surface answers is unchanged.
func TestValidationNamesTheField(t *testing.T) {
	long := strings.Repeat("x", MaxTitle+1)
	cases := []struct {
		in    CreateTicketInput
		field string
		text  string
	}{
		{CreateTicketInput{Workspace: "inbox", NewTicket: NewTicket{Title: "   "}}, "title", "title must not be blank"},
		{CreateTicketInput{Workspace: "inbox", NewTicket: NewTicket{Title: long}}, "title", "title is 201 characters long; the limit is 200"},
		{CreateTicketInput{Workspace: "inbox", NewTicket: NewTicket{Title: "t", Owner: "alice"}}, "owner", `owner "alice" must be`},
		{CreateTicketInput{Workspace: "inbox", NewTicket: NewTicket{Title: "t", Due: "tomorrow"}}, "due", `due "tomorrow" is not a date`},
		{CreateTicketInput{Workspace: "inbox", NewTicket: NewTicket{Title: "t", Tags: []string{"Frontend"}}}, "tags", `tag "Frontend" must be`},
		{CreateTicketInput{Workspace: "inbox", NewTicket: NewTicket{Title: "t", Links: []Link{{Kind: "url", Ref: "nope"}}}}, "links", "links[0].ref"},
		{CreateTicketInput{Workspace: "Bad Slug", NewTicket: NewTicket{Title: "t"}}, "", "is not a valid slug"},
	}
	for _, c := range cases {
		err := c.in.Validate()
		if err == nil || ErrorCode(err) != CodeInvalid || ErrorField(err) != c.field || !strings.HasPrefix(err.Error(), c.text) && !strings.Contains(err.Error(), c.text) {
			t.Errorf("%+v: %v (field %q), want field %q and %q", c.in, err, ErrorField(err), c.field, c.text)
		}
	}
	body := strings.Repeat("b", MaxBody+1)
	up := UpdateTicketInput{ID: "inbox-1", Body: &body}
	if err := up.Validate(); ErrorField(err) != "body" {
		t.Errorf("update with a long body: %v (field %q), want field body", err, ErrorField(err))
	}
	note := AddNoteInput{ID: "inbox-1"}
	if err := note.Validate(); ErrorField(err) != "body" || err.Error() != "body must not be empty" {
		t.Errorf("empty note: %v (field %q)", err, ErrorField(err))
	}
	ws := CreateWorkspaceInput{Slug: "ops", Name: " "}
	if err := ws.Validate(); ErrorField(err) != "name" {
		t.Errorf("a blank workspace name: %v (field %q), want field name", err, ErrorField(err))
	}
}
