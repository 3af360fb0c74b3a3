package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// The functions API Gateway sends HTTP requests to (template.yaml): the
// agents' build and the board's.
const (
	agentsResource = "McpFunction"
	webResource    = "WebFunction"
)

// gatewayRoute is one HttpApi event of a function: a route of the API.
type gatewayRoute struct{ function, method, path string }

// gatewayRoutes are the HttpApi events of every function of the template.
func gatewayRoutes(t *testing.T, tpl template) []gatewayRoute {
	t.Helper()
	var out []gatewayRoute
	for name, r := range tpl.doc["Resources"].(map[string]any) {
		if str(get(r, "Type")) != "AWS::Serverless::Function" {
			continue
		}
		events, _ := get(r, "Properties", "Events").(map[string]any)
		for _, ev := range events {
			if str(get(ev, "Type")) != "HttpApi" {
				continue
			}
			out = append(out, gatewayRoute{function: name, method: str(get(ev, "Properties", "Method")), path: str(get(ev, "Properties", "Path"))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

// pickRoute is the route an HTTP API chooses for method and path: the most
// specific match, a path without a variable before a greedy {proxy+}, the
// greedy route with the longest prefix before a shorter one, and a named
// method before ANY.
func pickRoute(routes []gatewayRoute, method, path string) (gatewayRoute, bool) {
	var (
		best  gatewayRoute
		score = -1
	)
	for _, r := range routes {
		if r.method != "ANY" && !strings.EqualFold(r.method, method) {
			continue
		}
		s := 0
		if prefix, greedy := strings.CutSuffix(r.path, "{proxy+}"); greedy {
			if !strings.HasPrefix(path, prefix) || len(path) == len(prefix) {
				continue
			}
			s = 2 * len(prefix)
		} else {
			if r.path != path {
				continue
			}
			s = 1 << 20
		}
		if r.method != "ANY" {
			s++
		}
		if s > score {
			best, score = r, s
		}
	}
	return best, score >= 0
}

// routedTo is the function API Gateway sends a request to ("" for none).
func routedTo(routes []gatewayRoute, method, path string) string {
	r, ok := pickRoute(routes, method, path)
	if !ok {
		return ""
	}
	return r.function
}

// patternPath is a path a ServeMux pattern serves: its path, with a
// segment added to a subtree ("/api/v1/" → "/api/v1/x").
func patternPath(pattern string) (method, path string) {
	method, path, found := strings.Cut(pattern, " ")
	if !found {
		method, path = http.MethodGet, pattern
	}
	if strings.HasSuffix(path, "/") {
		path += "x"
	}
	return method, path
}

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
