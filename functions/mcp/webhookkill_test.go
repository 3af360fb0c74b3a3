//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// heldReceiver holds the first request it gets until released, and takes
// every later one with 204, noting each request's webhook-id.
type heldReceiver struct {
	mu      sync.Mutex
	ids     []string
	held    chan string   // gets the held request's id
	release chan struct{} // closed to let the held request end
	arrived chan struct{} // a request arrived
}

func (h *heldReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("webhook-id")
	h.mu.Lock()
	first := len(h.ids) == 0
	h.ids = append(h.ids, id)
	h.mu.Unlock()
	select {
	case h.arrived <- struct{}{}:
	default:
	}
	if first {
		h.held <- id
		<-h.release
		w.WriteHeader(http.StatusServiceUnavailable) // too late: its sender is dead
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *heldReceiver) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ids)
}

// The kill test runs the real binary: a subscription, three events, the
// first delivery held by the receiver while the server is SIGKILLed, a
// restart on the same data; the held event arrives again, then the others,
// in order, none skipped.
func TestWebhookDeliveryCutByKillIsSentAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and SIGKILLs the server binary; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	bin := buildServer(t)
	data := t.TempDir()
	recv := &heldReceiver{held: make(chan string, 1), release: make(chan struct{}), arrived: make(chan struct{}, 100)}
	hook := httptest.NewServer(recv)
	defer hook.Close()
	defer close(recv.release)

	// The subscription is made on the file before the server starts, as
	// an admin (loopback mode has no signed-in admin over the API).
	store, err := sqlite.OpenDir(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	hooks := webhook.New(webhook.Config{Store: store, Secrets: store, Workspaces: store, AllowPrivate: true})
	sub, err := hooks.Create(board.WithPrincipal(ctx, auth.LocalPerson), webhook.CreateInput{RequestID: "crash-hook", Workspace: crashWorkspace, URL: hook.URL + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	store.Close()

	env := []string{"LEDGER_WEBHOOK_ALLOW_PRIVATE=1", "LEDGER_WEBHOOK_POLL=50ms", "LEDGER_WEBHOOK_RETRY=100ms"}
	srv := startServer(ctx, t, bin, data, env...)
	cs := connect(ctx, t, srv)
	for i := range 3 {
		if _, err := callTool[board.TicketResult](ctx, cs, "create_ticket", map[string]any{
			"request_id": fmt.Sprintf("hook-%d", i), "workspace": crashWorkspace, "title": fmt.Sprintf("ticket %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cs.Close()
	var heldID string
	select {
	case heldID = <-recv.held:
	case <-ctx.Done():
		t.Fatalf("no delivery arrived: %v", ctx.Err())
	}
	srv.kill() // while the receiver holds the request
	srv.waitExit(t)

	// The events of the workspace after the subscription, in feed order.
	store, err = sqlite.OpenDir(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := store.EventsAfter(ctx, crashWorkspace, sub.Subscription.Progress.Cursor, 100)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	var feed []string
	for _, e := range evs {
		feed = append(feed, e.Event.ID)
	}
	if len(feed) != 3 || heldID != feed[0] {
		t.Fatalf("held %s; the feed after the subscription is %v, want 3 events starting with the held one", heldID, feed)
	}

	srv = startServer(ctx, t, bin, data, env...)
	for len(recv.got()) < 4 {
		select {
		case <-recv.arrived:
		case <-ctx.Done():
			t.Fatalf("after the restart the receiver got only %v", recv.got())
		}
	}
	srv.stop(t)
	if got, want := recv.got(), append([]string{heldID}, feed...); !slices.Equal(got, want) {
		t.Fatalf("the receiver got %v, want the held event, then it again and the rest in order: %v", got, want)
	}
}
