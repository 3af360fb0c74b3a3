package openingstore

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// Credential reads go to the store the open published early, while the
// open still runs; everything else waits for the open.
func TestEarlyCredentials(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Now()
	if err := st.CreatePerson(context.Background(), board.Person{Handle: "ann", Name: "Ann", Role: board.RoleMember, CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	publish, release := make(chan struct{}), make(chan struct{})
	s := InBackgroundEarly(context.Background(), func(ctx context.Context, early func(Backend)) (Backend, error) {
		<-publish
		early(st)
		<-release // the rest of the open (DynamoDB: seeding the workspaces)
		return st, nil
	}, slog.New(slog.DiscardHandler))

	// Before the store is published, a credential read waits for it: one
	// that gives up gets its own context's error, one that waits goes
	// through once the store is published.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.GetPerson(cancelled, "ann"); !errors.Is(err, context.Canceled) {
		t.Fatalf("GetPerson before the store was published, with a cancelled context: %v, want it to wait", err)
	}
	// A read that waited for the open would end at this deadline instead.
	early, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	got := make(chan error, 1)
	go func() {
		_, err := s.GetPerson(early, "ann")
		got <- err
	}()
	close(publish)
	if err := <-got; err != nil {
		t.Fatalf("GetPerson once published: %v", err)
	}
	if _, err := s.GetSession(early, "no-such-hash", now); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("GetSession while opening: %v, want ErrNotFound from the early store", err)
	}
	if _, err := s.GetToken(early, "no-such-token"); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("GetToken while opening: %v, want ErrNotFound from the early store", err)
	}
	if _, _, err := s.GetOAuthToken(early, "no-such-grant", "no-such-hash"); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("GetOAuthToken while opening: %v, want ErrNotFound from the early store", err)
	}
	// The rest still waits for the open (TestEveryMethodGoesWhereItsKindSays
	// holds every method to it).
	if _, err := s.ListWorkspaces(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("ListWorkspaces while opening: %v, want it to wait", err)
	}
	close(release)
	if ws, err := s.ListWorkspaces(context.Background()); err != nil || len(ws) != 3 {
		t.Fatalf("ListWorkspaces once open: %d, %v", len(ws), err)
	}
}

// An open that ends without publishing leaves credential reads to the open
// store, as every other call.
func TestEarlyNotPublished(t *testing.T) {
	release := make(chan struct{})
	s := InBackgroundEarly(context.Background(), func(ctx context.Context, _ func(Backend)) (Backend, error) {
		<-release
		return sqlite.Open(ctx, t.TempDir()+"/ledger.db")
	}, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { s.Close() })
	got := make(chan error, 1)
	go func() {
		_, err := s.GetPerson(context.Background(), "nobody")
		got <- err
	}()
	close(release)
	if err := <-got; !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("GetPerson after an open that published nothing: %v, want ErrNotFound from the open store", err)
	}
}
