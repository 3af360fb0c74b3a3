package board

import (
	"reflect"
	"testing"
)

// TestNewTicketMatchesCreate: an import's row and create_ticket take the
// same fields of a new ticket, with the same names, types and descriptions,
// so a model reading either schema learns one rule. CreateTicketInput adds
// only what a single call needs (request_id, workspace).
func TestNewTicketMatchesCreate(t *testing.T) {
	row, create := reflect.TypeFor[NewTicket](), reflect.TypeFor[CreateTicketInput]()
	for i := range row.NumField() {
		f := row.Field(i)
		c, ok := create.FieldByName(f.Name)
		if !ok {
			t.Errorf("CreateTicketInput lacks %s", f.Name)
			continue
		}
		if c.Type != f.Type || c.Tag != f.Tag {
			t.Errorf("%s: NewTicket has %v `%s`, CreateTicketInput %v `%s`", f.Name, f.Type, f.Tag, c.Type, c.Tag)
		}
	}
	for i := range create.NumField() {
		name := create.Field(i).Name
		if _, ok := row.FieldByName(name); !ok && name != "RequestID" && name != "Workspace" {
			t.Errorf("CreateTicketInput has %s, which NewTicket lacks", name)
		}
	}
}
