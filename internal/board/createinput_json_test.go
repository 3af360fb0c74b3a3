package board

import (
	"encoding/json"
	"testing"
)

// TestCreateTicketInputJSONIsFlat: CreateTicketInput embeds NewTicket, and
// create_ticket's JSON keeps the ticket's fields beside request_id and
// workspace. A JSON method on NewTicket would be promoted and swallow the
// whole input, so this fails as soon as the embedding stops being flat.
func TestCreateTicketInputJSONIsFlat(t *testing.T) {
	in := CreateTicketInput{RequestID: "r1", Workspace: "inbox", NewTicket: NewTicket{Title: "Flat", Priority: PriorityHigh, Tags: []string{"a"}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"request_id":"r1","workspace":"inbox","title":"Flat","priority":"high","tags":["a"]}`
	if string(b) != want {
		t.Fatalf("encoded %s, want %s", b, want)
	}
	var back CreateTicketInput
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if back.RequestID != "r1" || back.Workspace != "inbox" || back.Title != "Flat" || back.Priority != PriorityHigh || len(back.Tags) != 1 {
		t.Fatalf("decoded %+v from %s", back, want)
	}
}
