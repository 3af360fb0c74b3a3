package webhook_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// clock is a test's movable time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is a board on SQLite with its webhooks service.
type fixture struct {
	store *sqlite.Store
	board *board.Service
	hooks *webhook.Service
	clock *clock
	admin context.Context
	n     int
}

func newFixture(t *testing.T, cfg webhook.Config) *fixture {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := board.NewService(board.Config{Store: s, BaseURL: "https://ledger.example"})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{now: time.Now().UTC()}
	cfg.Store, cfg.Secrets, cfg.Workspaces, cfg.BaseURL, cfg.Now = s, s, s, "https://ledger.example", c.Now
	admin := board.WithPrincipal(t.Context(), board.Principal{Author: "human:alice", Role: board.RoleAdmin, Source: board.SourceREST})
	return &fixture{store: s, board: svc, hooks: webhook.New(cfg), clock: c, admin: admin}
}

func (f *fixture) rid() string { f.n++; return fmt.Sprintf("req-%d", f.n) }

func (f *fixture) create(t *testing.T, title string) string {
	t.Helper()
	r, err := f.board.CreateTicket(f.admin, board.CreateTicketInput{RequestID: f.rid(), Workspace: "inbox", NewTicket: board.NewTicket{Title: title}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Ticket.ID
}

func (f *fixture) move(t *testing.T, id string, to board.Status) {
	t.Helper()
	if _, err := f.board.MoveTicket(f.admin, board.MoveTicketInput{RequestID: f.rid(), ID: id, Status: to, Reason: "because"}); err != nil {
		t.Fatal(err)
	}
}

// subscribe subscribes the receiver and tells it the secret.
func (f *fixture) subscribe(t *testing.T, r *receiver, in webhook.CreateInput) webhook.Subscription {
	t.Helper()
	in.Workspace, in.URL = "inbox", r.URL+"/hook"
	if in.RequestID == "" {
		in.RequestID = f.rid()
	}
	c, err := f.hooks.Create(f.admin, in)
	if err != nil {
		t.Fatal(err)
	}
	r.setSecret(c.Secret)
	return c.Subscription
}

// feedIDs is the ids of the workspace's events from the first, in order.
func (f *fixture) feedIDs(t *testing.T) []string {
	t.Helper()
	evs, err := f.store.EventsAfter(t.Context(), "inbox", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Event.ID)
	}
	return out
}

func (f *fixture) sub(t *testing.T, id string) webhook.Subscription {
	t.Helper()
	s, err := f.store.GetSubscription(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
