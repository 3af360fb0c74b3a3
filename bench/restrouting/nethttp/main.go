// Command nethttp is the REST API as ticket-ledger serves it (internal/rest
// on the standard library's ServeMux), for the routing benchmark: it builds
// the handler, answers one GET /api/v1/workspaces/inbox/tickets?limit=5&status=doing (the query checked against its schema), then the OpenAPI
// document, and prints how long each took from the start of main.
package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/ticket-ledger/ticket-ledger/bench/restrouting/stub"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/rest"
)

func main() {
	start := time.Now()
	resolver := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeLoopback, LocalAgent: board.Principal{Author: "ai:bench"}})
	h := rest.New(rest.Config{Service: stub.Service(), Resolver: resolver})
	built := time.Since(start)
	first := serve(h, "/api/v1/workspaces/inbox/tickets?limit=5&status=doing", start)
	var doc time.Duration
	if len(os.Args) < 2 || os.Args[1] != "first" { // "first": stop after the first answer
		doc = serve(h, "/api/v1/openapi.json", start)
	}
	fmt.Printf("%d %d %d\n", built, first, doc)
}

func serve(h http.Handler, path string, start time.Time) time.Duration {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != 200 {
		panic(fmt.Sprintf("%s: %d %s", path, rec.Code, rec.Body))
	}
	return time.Since(start)
}
