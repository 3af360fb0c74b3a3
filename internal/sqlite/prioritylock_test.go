package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

func client(id string) board.OAuthClient {
	now := time.Now()
	return board.OAuthClient{ID: id, Name: id, RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
}

// An admin command is never starved by a server that writes without a
// pause (an import committing chunk after chunk): its write gets in after
// at most the server's transaction in flight. Four writers keep the
// server's committer busy, each batch holding the write lock a while;
// the admin store opens and writes, and the server commits at most two
// batches meanwhile (the one in flight, and one that began as the admin
// took its turn). Without the priority lock, SQLite's polling busy handler
// found the lock free only by chance between batches.
func TestAdminCommandIsNotStarvedByServerWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	server, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	var batches atomic.Int64
	sqlite.SetBatchHooks(server, nil, func() { time.Sleep(20 * time.Millisecond) }, func(err error) {
		if err == nil {
			batches.Add(1)
		}
	})
	stop := storm(t, 4, func(w, i int) error {
		return server.PutOAuthClient(ctx, client(fmt.Sprintf("server-%d-%d", w, i)))
	})
	defer stop()
	for deadline := time.Now().Add(time.Minute); batches.Load() < 5; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server committed fewer than 5 batches in a minute")
		}
	}

	before := batches.Load()
	admin, err := sqlite.OpenWith(ctx, path, sqlite.Options{Priority: true})
	if err != nil {
		t.Fatalf("opening the store beside a busy server: %v", err)
	}
	defer admin.Close()
	opened := batches.Load()
	if err := admin.PutOAuthClient(ctx, client("admin")); err != nil {
		t.Fatalf("the admin write: %v", err)
	}
	after := batches.Load()
	if opened-before > 2 || after-opened > 2 {
		t.Fatalf("the server committed %d batches while the admin store opened and %d while it wrote; want at most 2 each", opened-before, after-opened)
	}
	if _, err := server.GetOAuthClient(ctx, "admin", time.Now()); err != nil {
		t.Fatalf("the server does not see the admin's write: %v", err)
	}
}

// When the server holds the write lock longer than an admin command waits,
// the command gives up with ErrBusy, says nothing was changed, and indeed
// wrote nothing.
func TestAdminCommandGivesUpWhenTheStoreStaysBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	server, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	defer sqlite.SetPriorityWait(200 * time.Millisecond)()
	admin, err := sqlite.OpenWith(ctx, path, sqlite.Options{Priority: true})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	holding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	sqlite.SetBatchHooks(server, nil, func() {
		once.Do(func() { close(holding); <-release })
	}, nil)
	done := make(chan error, 1)
	go func() { done <- server.PutOAuthClient(ctx, client("long")) }()
	<-holding
	err = admin.PutOAuthClient(ctx, client("admin"))
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, sqlite.ErrBusy) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("the admin write beside a held lock: %v; want ErrBusy", err)
	}
	if _, err := server.GetOAuthClient(ctx, "admin", time.Now()); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("the refused admin write is in the store: %v", err)
	}
}
