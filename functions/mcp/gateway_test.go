package main

import (
	"net/http"
	"sort"
	"strings"
	"testing"
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
