package rest_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/storetest"
)

// The store keeps a token's hash, never the token: the witness reads every
// token row or item as text.
func TestTokensHashedAtRest(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		rows := e.b.rows(t, "tokens")
		if len(rows) != len(e.tokens) {
			t.Fatalf("the store holds %d token rows, want %d", len(rows), len(e.tokens))
		}
		for name, secret := range e.tokens {
			random := strings.TrimPrefix(secret, auth.TokenPrefix)
			hash := auth.HashSecret(secret)
			found := 0
			for _, row := range rows {
				if strings.Contains(row, random) {
					t.Fatalf("token %s is stored as it is: %s", name, row)
				}
				if strings.Contains(row, "="+hash) {
					found++
				}
			}
			if found != 1 {
				t.Fatalf("the SHA-256 of token %s is in %d rows, want 1", name, found)
			}
		}
	})
}

// A revoked token stops at the next call on another instance: nothing of
// it is cached.
func TestRevokedTokenOnAnotherInstance(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		other := e.serve(e.b.open(t), auth.ModeRequired)
		claude := e.tokens["claude"]
		for _, base := range []string{e.url, other} {
			e.ok(call{method: "GET", path: "/api/v1/workspaces", token: claude, base: base}, 200)
		}
		mcpSession(t, other, claude, modernVersion) // MCP works there too
		asAlice := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Role: board.RoleAdmin})
		if _, err := e.accounts.RevokeToken(asAlice, auth.TokenID(claude)); err != nil {
			t.Fatal(err)
		}
		for _, base := range []string{other, e.url} {
			a := e.do(call{method: "GET", path: "/api/v1/workspaces", token: claude, base: base})
			if a.status != http.StatusUnauthorized || !strings.Contains(a.header.Get("WWW-Authenticate"), "invalid_token") {
				t.Fatalf("the revoked token on %s: %d %s, want 401 invalid_token", base, a.status, a.body)
			}
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "rest-tests", Version: "1"}, nil)
		_, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: other + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{claude, http.DefaultTransport}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
		if err == nil {
			t.Fatal("MCP with the revoked token connected on the other instance")
		}
		// The other tokens of the person still work.
		e.ok(call{method: "GET", path: "/api/v1/workspaces", token: e.tokens["alice"], base: other}, 200)
	})
}

// last_used_at is written at most once a minute per token, however many
// calls use it: 20 calls, one write; past the minute, the next one.
func TestLastUsedAt(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		var counting touchCounter
		e := newEnv(t, backend, envOptions{wrap: func(s storetest.Store) storetest.Store { counting.Store = s; return &counting }})
		bob := e.tokens["bob"]
		id := auth.TokenID(bob)
		lastUsed := func() *time.Time {
			t.Helper()
			tok, err := e.b.store.GetToken(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			return tok.LastUsedAt
		}
		if lastUsed() != nil {
			t.Fatal("a token never used has a last_used_at")
		}
		start := e.clock.Now()
		for range 20 {
			e.ok(call{method: "GET", path: "/api/v1/workspaces", token: bob}, 200)
		}
		if got := lastUsed(); got == nil || !got.Equal(start) {
			t.Fatalf("last_used_at = %v after use, want %v", got, start)
		}
		if n := counting.touches.Load(); n != 1 {
			t.Fatalf("20 calls wrote last_used_at %d times, want 1", n)
		}
		e.clock.Add(59 * time.Second)
		e.ok(call{method: "GET", path: "/api/v1/workspaces", token: bob}, 200)
		if got := lastUsed(); !got.Equal(start) || counting.touches.Load() != 1 {
			t.Fatalf("within the minute: last_used_at %v after %d writes, want %v after 1", got, counting.touches.Load(), start)
		}
		e.clock.Add(time.Second)
		e.ok(call{method: "GET", path: "/api/v1/workspaces", token: bob}, 200)
		if got := lastUsed(); !got.Equal(start.Add(time.Minute)) || counting.touches.Load() != 2 {
			t.Fatalf("a minute on: last_used_at %v after %d writes, want %v after 2", got, counting.touches.Load(), start.Add(time.Minute))
		}
		// Listed with the token.
		asBob := board.WithPrincipal(context.Background(), board.Principal{Author: "human:bob", Role: board.RoleMember})
		mine, err := e.accounts.Tokens(asBob, "bob")
		if err != nil || len(mine) != 2 {
			t.Fatalf("bob's tokens: %v %v", mine, err)
		}
		for _, tok := range mine {
			if tok.ID == id && (tok.LastUsedAt == nil || !tok.LastUsedAt.Equal(start.Add(time.Minute))) {
				t.Fatalf("listed last_used_at %v", tok.LastUsedAt)
			}
		}
	})
}

type touchCounter struct {
	storetest.Store
	touches atomic.Int64
}

func (c *touchCounter) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	c.touches.Add(1)
	return c.Store.TouchToken(ctx, id, at, staleBefore)
}

// A disabled person's tokens stop at once, the agent's included; enabled
// again, they work.
func TestDisabledPersonTokens(t *testing.T) {
	e := newEnv(t, "sqlite")
	op := board.WithPrincipal(context.Background(), auth.Operator)
	if err := e.accounts.SetDisabled(op, "bob", true); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bob", "botbob"} {
		e.refused(call{method: "GET", path: "/api/v1/workspaces", token: e.tokens[name]}, 401, "unauthorized")
	}
	if err := e.accounts.SetDisabled(op, "bob", false); err != nil {
		t.Fatal(err)
	}
	e.ok(call{method: "GET", path: "/api/v1/workspaces", token: e.tokens["botbob"]}, 200)
}

// No token reaches the log: the server logs at debug through calls with
// good, revoked, unknown and malformed tokens and a store that fails while
// reading one; the log is searched for every secret.
func TestTokensNeverLogged(t *testing.T) {
	var failing failingStore
	e := newEnv(t, "sqlite", envOptions{wrap: func(s storetest.Store) storetest.Store { failing.Store = s; return &failing }})
	unknown := auth.NewTokenSecret()
	for _, tok := range []string{e.tokens["alice"], e.tokens["claude"], unknown, "tl_" + strings.Repeat("x", 10)} {
		e.do(call{method: "GET", path: "/api/v1/workspaces", token: tok})
		e.do(call{method: "POST", path: "/api/v1/workspaces/inbox/tickets", token: tok, key: "log-" + tok[len(tok)-4:], body: map[string]any{"title": "logged?"}})
	}
	mcpSession(t, e.url, e.tokens["claude"], legacyVersion)
	asAlice := board.WithPrincipal(context.Background(), board.Principal{Author: "human:alice", Role: board.RoleAdmin})
	if _, err := e.accounts.RevokeToken(asAlice, auth.TokenID(e.tokens["claude"])); err != nil {
		t.Fatal(err)
	}
	e.do(call{method: "GET", path: "/api/v1/workspaces", token: e.tokens["claude"]})
	failing.failTokens.Store(true)
	e.refused(call{method: "GET", path: "/api/v1/workspaces", token: e.tokens["bob"]}, 503, "internal")
	logs := e.logs.String()
	if !strings.Contains(logs, "reading an API token or its person failed") {
		t.Fatalf("the store failure was not logged; the log holds:\n%s", logs)
	}
	for name, secret := range map[string]string{"alice": e.tokens["alice"], "claude": e.tokens["claude"], "bob": e.tokens["bob"], "unknown": unknown} {
		if strings.Contains(logs, strings.TrimPrefix(secret, auth.TokenPrefix)) {
			t.Fatalf("token %s is in the log", name)
		}
	}
}
