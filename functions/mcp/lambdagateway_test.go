package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// lamGateway is API Gateway in front of the functions: each event goes to
// the function template.yaml routes its method and path to.
func lamGateway(t *testing.T, functions map[string]lamInvoke) lamInvoke {
	t.Helper()
	routes := gatewayRoutes(t, loadTemplate(t))
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		name := routedTo(routes, ev.RequestContext.HTTP.Method, ev.RawPath)
		invoke, ok := functions[name]
		if !ok {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%s %s is routed to %q, which this test did not start", ev.RequestContext.HTTP.Method, ev.RawPath, name)
		}
		return invoke(ctx, ev)
	}
}

// lambdaBoardIsNotFound: the agents' build has no board, so a board's path
// that reaches it (API Gateway sends none there) is not found, while its
// own paths answer.
func lambdaBoardIsNotFound(t *testing.T, invoke lamInvoke) {
	t.Helper()
	for _, c := range []struct {
		method, path string
	}{{http.MethodGet, "/"}, {http.MethodGet, "/signin"}, {http.MethodPost, "/signin"}, {http.MethodGet, "/static/board.css"}, {http.MethodGet, "/oauth/authorize"}} {
		r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, c.method, c.path, nil, nil))
		if r.HTTP.StatusCode != http.StatusNotFound {
			t.Errorf("the agents' build: %s %s answers HTTP %d %q, want 404 (it has no board)", c.method, c.path, r.HTTP.StatusCode, r.HTTP.Body)
		}
	}
	if r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/.well-known/oauth-authorization-server", nil, nil)); r.HTTP.StatusCode != http.StatusOK {
		t.Errorf("the agents' build: the OAuth metadata answers HTTP %d, want 200", r.HTTP.StatusCode)
	}
}
