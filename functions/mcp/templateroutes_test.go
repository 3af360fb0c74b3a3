package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// API Gateway sends the agents' paths to the agents' function (built
// without the board) and the rest to the board's: every pattern of the
// server's mux but the board's reaches McpFunction, every route of
// McpFunction reaches one of those patterns and nothing of the board, and
// WebFunction has the catch-all, which the board's paths reach.
func TestTemplateRoutesFollowTheBuilds(t *testing.T) {
	routes := gatewayRoutes(t, loadTemplate(t))
	cfg := config{Auth: auth.ModeRequired, BaseURL: "http://127.0.0.1:8080", Retention: 24 * time.Hour, Store: storeSQLite}
	a, err := newHandler(cfg, e2eStore(t, "sqlite"), slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mux := a.routes
	served := func(method, path string) string {
		_, pattern := mux.Handler(httptest.NewRequest(method, path, nil))
		return pattern
	}

	agents := 0
	for _, p := range mux.patterns {
		if p == boardPattern {
			continue
		}
		agents++
		method, path := patternPath(p)
		if got := routedTo(routes, method, path); got != agentsResource {
			t.Errorf("%s %s (the server's %q) is routed to %q, want %s: add it to its Events", method, path, p, got, agentsResource)
		}
	}
	if agents < 8 {
		t.Fatalf("the server's mux has %d patterns besides the board's (%v): want MCP, REST, health and the OAuth endpoints", agents, mux.patterns)
	}

	web := map[string]string{}
	for _, r := range routes {
		switch r.function {
		case agentsResource:
			method := r.method
			if method == "ANY" {
				method = http.MethodPost
			}
			path := strings.ReplaceAll(r.path, "{proxy+}", "x")
			if p := served(method, path); p == "" || p == boardPattern {
				t.Errorf("%s routes %s %s, which the agents' build does not serve (pattern %q)", agentsResource, r.method, r.path, p)
			}
		case webResource:
			web[r.path] = r.method
		default:
			t.Errorf("%s has the HTTP route %s %s; only %s and %s answer HTTP", r.function, r.method, r.path, agentsResource, webResource)
		}
	}
	if want := map[string]string{"/": "ANY", "/{proxy+}": "ANY"}; !reflect.DeepEqual(web, want) {
		t.Errorf("%s routes = %v, want %v: the catch-all, which every path the agents' routes leave reaches", webResource, web, want)
	}

	// The board's paths: its pages, sign-in, invitations, static assets and
	// the OAuth approval page.
	for _, path := range []string{"/", "/signin", "/signout", "/invite/abc", "/static/board.css", "/favicon.ico", "/w/inbox", "/w/inbox/changes",
		"/tickets/inbox-1", "/tokens", "/tasks", "/people", "/agents", oauth.PathAuthorize} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			if p := served(method, path); p != boardPattern {
				t.Errorf("%s %s is the server's %q, not the board's: the list here is wrong", method, path, p)
			}
			if got := routedTo(routes, method, path); got != webResource {
				t.Errorf("the board's %s %s is routed to %q, want %s", method, path, got, webResource)
			}
		}
	}
}
