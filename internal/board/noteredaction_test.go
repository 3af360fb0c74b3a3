package board

import (
	"encoding/json"
	"testing"
)

// TestNoteRedactionScrubsBodiesOnly: a redaction replaces the note's texts
// where a call's arguments and answer keep them (a "body"), and nothing
// else that happens to read the same; numbers come back as written.
func TestNoteRedactionScrubsBodiesOnly(t *testing.T) {
	texts := map[string]bool{"hunter2": true}
	raw := json.RawMessage(`{"request_id":"hunter2","note":{"body":"hunter2","id":"inbox-1~x~y","n":12345678901234567890},"body":"hunter2"}`)
	got, changed, err := scrubJSON(raw, texts)
	if err != nil || !changed {
		t.Fatalf("scrubJSON: changed %v, %v", changed, err)
	}
	var v struct {
		RequestID string `json:"request_id"`
		Body      string `json:"body"`
		Note      struct {
			Body string      `json:"body"`
			N    json.Number `json:"n"`
		} `json:"note"`
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	if v.Body != RedactedNoteBody || v.Note.Body != RedactedNoteBody || v.RequestID != "hunter2" || v.Note.N != "12345678901234567890" {
		t.Errorf("scrubbed %s", got)
	}
	same, changed, err := scrubJSON(json.RawMessage(`{"body":"other text"}`), texts)
	if err != nil || changed || string(same) != `{"body":"other text"}` {
		t.Errorf("a record without the texts: %s, %v, %v; want it as it was", same, changed, err)
	}
}

// TestNoteRedactionScrubsEditsKeepingThem: an edit event keeps its id,
// time and author; only its texts become the placeholder.
func TestNoteRedactionScrubsEditsKeepingThem(t *testing.T) {
	e := Event{ID: "ev1", Type: EventNoteEdited, NoteID: "n", Author: "human:alice", RequestID: "r1",
		Changes: []FieldChange{{Field: "body", Before: "hunter2", After: "hunter3"}}}
	got := scrubbedEdits([]Event{e})
	if len(got) != 1 || got[0].ID != "ev1" || got[0].Author != "human:alice" || got[0].RequestID != "r1" ||
		got[0].Changes[0].Before != RedactedNoteBody || got[0].Changes[0].After != RedactedNoteBody {
		t.Fatalf("scrubbed %+v", got)
	}
	if e.Changes[0].Before != "hunter2" {
		t.Errorf("scrubbing changed the event read: %+v", e.Changes)
	}
}
