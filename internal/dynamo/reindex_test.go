package dynamo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// A reindex that stops says where to resume, and resuming there finishes
// the rest: workspaces go in slug order.
func TestReindexWordsResumes(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			s := openStore(t, ep.newEndpoint(t), nil, dynamo.Config{SerializeWrites: ep.name == "moto"})
			svc := newService(t, s)
			for _, id := range []string{"a", "b"} {
				if _, err := svc.CreateTicket(aiCtx(t), board.CreateTicketInput{RequestID: id, Workspace: "inbox", NewTicket: board.NewTicket{Title: "記事の下書き"}}); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			var done []string
			st, err := s.ReindexWords(ctx, dynamo.ReindexFrom{}, func(ws string, n int) {
				done = append(done, ws)
				cancel() // stop after the first workspace
			})
			var stopped *dynamo.ReindexError
			if !errors.As(err, &stopped) || stopped.Resume != (dynamo.ReindexFrom{Workspace: "private"}) || st.Tickets != 2 {
				t.Fatalf("a stopped reindex: %v (%+v), %d tickets; want it to resume at private's newest after inbox's 2", err, stopped, st.Tickets)
			}
			st, err = s.ReindexWords(context.Background(), stopped.Resume, func(ws string, n int) { done = append(done, ws) })
			if err != nil || len(done) != 3 || done[1] != "private" || done[2] != "reference" {
				t.Errorf("resumed: %v, workspaces %v, %+v", err, done, st)
			}
			st, err = s.ReindexWords(context.Background(), dynamo.ReindexFrom{Workspace: "inbox", Number: 1}, nil)
			if err != nil || st.Tickets != 1 || st.Put != len(board.Words("記事の下書き")) {
				t.Errorf("from inbox-1: %v, %+v", err, st)
			}
		})
	}
}
