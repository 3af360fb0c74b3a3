package mcpserver

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// TestAnswerGateBoundsBytesInFlight: with room for one large answer in
// flight, eight clients reading large tickets at once all get their
// answers, and the gate never held more than its size: the answers waited
// for each other instead of piling up in memory.
func TestAnswerGateBoundsBytesInFlight(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	ai := board.Principal{Author: "ai:gate", Source: board.SourceMCP}
	ctx := board.WithPrincipal(context.Background(), ai)
	for i := range 4 {
		if _, err := svc.CreateTicket(ctx, board.CreateTicketInput{
			RequestID: fmt.Sprint(i),
			Workspace: "inbox",
			NewTicket: board.NewTicket{Title: "big", Body: strings.Repeat("\x01", board.MaxBody)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	const size = 400 << 10 // one answer of ~280 KB at a time
	h, gate := handler(NewServer(svc, Options{Principal: StaticPrincipal(ai)}), HandlerOptions{AnswerBytesInFlight: size})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	var wg sync.WaitGroup
	errs := make([]error, 8)
	for c := range errs {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: "gate", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
			if err != nil {
				errs[c] = err
				return
			}
			defer cs.Close()
			for i := range 5 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_ticket", Arguments: map[string]any{"id": fmt.Sprintf("inbox-%d", 1+(c+i)%4)}})
				if err == nil && res.IsError {
					err = fmt.Errorf("tool error")
				}
				if err != nil {
					errs[c] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if peak := gate.peak.Load(); peak > size || peak < 200<<10 {
		t.Errorf("the gate held at most %d bytes at once, want an answer's size and at most %d", peak, size)
	}
	if n := gate.inFlight.Load(); n != 0 {
		t.Errorf("%d bytes still held after every response was written", n)
	}
}
