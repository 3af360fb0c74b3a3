package webhooklambda

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/streamimage"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// matches is Lambda's event filtering for the part of its pattern syntax
// dynamo.EventStreamPattern uses: objects nest, and a list passes a value
// equal to one of its strings or starting with one of its {"prefix"}es.
func matches(pattern, value any) bool {
	switch p := pattern.(type) {
	case map[string]any:
		v, ok := value.(map[string]any)
		if !ok {
			return false
		}
		for k, sub := range p {
			if !matches(sub, v[k]) {
				return false
			}
		}
		return true
	case []any:
		s, ok := value.(string)
		if !ok {
			return false
		}
		for _, alt := range p {
			switch a := alt.(type) {
			case string:
				if s == a {
					return true
				}
			case map[string]any:
				if prefix, ok := a["prefix"].(string); ok && strings.HasPrefix(s, prefix) {
					return true
				}
			}
		}
	}
	return false
}

// The stream filter template.yaml gives the fan-out passes exactly the
// records it acts on: new events, a ticket's and a workspace's own, and
// none of the other writes (tickets, notes, counters, request records,
// subscriptions, the delivery log).
func TestEventStreamPatternPassesNewEventsOnly(t *testing.T) {
	r := newRig(t)
	rc := newReceiver(t)
	sub := r.subscribe(t, rc, webhook.CreateInput{})
	id := r.create(t, "Fix the login page")
	if _, err := r.board.AddNote(r.admin, board.AddNoteInput{RequestID: r.rid(), ID: id, Body: "see the logs"}); err != nil {
		t.Fatal(err)
	}
	r.move(t, id, board.StatusDone)
	name := "Inbox, renamed"
	if _, err := r.board.UpdateWorkspace(r.admin, board.UpdateWorkspaceInput{RequestID: r.rid(), Workspace: "inbox", Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.hooks.SendTest(r.admin, "inbox", sub.ID); err != nil {
		t.Fatal(err)
	}
	var pattern any
	if err := json.Unmarshal([]byte(dynamo.EventStreamPattern), &pattern); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rec := range r.records(t) {
		raw, _ := json.Marshal(rec)
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		e, err := dynamo.EventFromImage(streamimage.Image(rec.Change.NewImage))
		if err != nil {
			t.Fatal(err)
		}
		isNewEvent := e != nil && rec.EventName == string(events.DynamoDBOperationTypeInsert)
		if matches(pattern, doc) != isNewEvent {
			t.Errorf("the filter passes %v a %s of %v (an event: %v)", !isNewEvent, rec.EventName, rec.Change.Keys, e != nil)
		}
		if isNewEvent {
			seen[e.Type] = true
		}
	}
	for _, kind := range []string{board.EventTicketCreated, board.EventNoteAdded, board.EventTicketMoved, board.EventWorkspaceUpdated} {
		if !seen[kind] {
			t.Errorf("no %s event passed the filter (passed: %v)", kind, seen)
		}
	}
}
