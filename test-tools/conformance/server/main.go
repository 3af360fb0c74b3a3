// Command server is a test-only MCP server for the conformance suite: the
// product's MCP stack (mcpserver.NewServer and Handler: its tools,
// middleware and tasks layer, on a fresh embedded store) plus the fixture
// tools, prompts and resources the suite's scenarios call, under the names
// of the reference "everything" server. The product never registers these
// fixtures; this binary exists only for test-tools/run.sh.
//
//	go run ./test-tools/conformance/server -addr 127.0.0.1:0
//
// It prints "conformance server listening on http://ADDR/mcp" when ready.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/tasks"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	dir, err := os.MkdirTemp("", "conformance-server")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.OpenDir(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	svc, err := board.NewService(board.Config{Store: store, BaseURL: "http://conformance.test"})
	if err != nil {
		log.Fatal(err)
	}
	runner := tasks.NewLocal(svc, nil)
	defer runner.Close()
	svc.SetRunner(runner)

	fixtures := newFixtureTasks()
	server := mcpserver.NewServer(svc, mcpserver.Options{
		Principal:  mcpserver.StaticPrincipal(board.Principal{Author: "ai:conformance", Source: board.SourceMCP}),
		ExtraTasks: fixtures.config(),
		Completion: complete,
	})
	addFixtures(server, fixtures)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mcpserver.Handler(server, mcpserver.HandlerOptions{})}
	fmt.Fprintf(os.Stderr, "conformance server listening on http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
