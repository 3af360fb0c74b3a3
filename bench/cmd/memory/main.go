// Command memory measures the server's memory while many clients read the
// largest tickets the board allows. It builds and starts the real server
// (functions/mcp, embedded store) as its own process, fills a board with
// tickets and notes at every limit over MCP, then has -clients sessions call
// get_ticket, list_tickets (limit 100) and get_workspace_summary on them for
// -duration, and prints the server's resident memory before the load and
// its peak (VmHWM) under it. Target (docs/benchmarks.md): 32 clients ≤ 150 MB.
//
// -bin measures another build of the server instead (e.g. one built from an
// older commit, for a before/after figure).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

func main() {
	clients := flag.Int("clients", 32, "concurrent MCP sessions")
	duration := flag.Duration("duration", 20*time.Second, "how long the clients read")
	tickets := flag.Int("tickets", 6, "tickets at every limit")
	notes := flag.Int("notes", 20, "notes at their limit on each ticket")
	bin := flag.String("bin", "", "server binary to measure (default: build ./functions/mcp)")
	serverLog = flag.Bool("server-log", false, "copy the server's log (e.g. GODEBUG=gctrace=1) to stderr")
	flag.Parse()
	if err := run(*clients, *duration, *tickets, *notes, *bin); err != nil {
		log.Fatal(err)
	}
}

var serverLog *bool

func run(clients int, duration time.Duration, tickets, notes int, bin string) error {
	dir, err := os.MkdirTemp("", "ledger-bench-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "ticket-ledger")
		build := exec.Command("go", "build", "-o", bin, "./functions/mcp")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the server: %w", err)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	srv := exec.Command(bin)
	srv.Env = append(os.Environ(), "LEDGER_ADDR="+addr, "LEDGER_DATA="+filepath.Join(dir, "data"), "LEDGER_AUTHOR=ai:bench", "LEDGER_STORE=sqlite")
	stderr, err := srv.StderrPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	if err := waitListening(stderr, 30*time.Second); err != nil {
		return err
	}
	url := "http://" + addr + "/mcp"
	ctx := context.Background()
	seed, err := session(ctx, url)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := fill(ctx, seed, tickets, notes); err != nil {
		return err
	}
	seed.Close()
	fmt.Fprintf(os.Stderr, "memory: %d tickets with %d notes each, every field at its limit, in %s\n", tickets, notes, time.Since(start).Round(time.Second))

	base, _ := status(srv.Process.Pid, "VmRSS")
	var calls, failures atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(duration)
	var firstErr atomic.Value
	for c := range clients {
		cs, err := session(ctx, url)
		if err != nil {
			return err
		}
		defer cs.Close()
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i++ {
				name, args := readCall(i, tickets)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				switch {
				case err != nil:
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				case res.IsError:
					failures.Add(1)
					firstErr.CompareAndSwap(nil, name+": "+text(res))
				default:
					calls.Add(1)
				}
			}
		})
	}
	wg.Wait()
	peak, _ := status(srv.Process.Pid, "VmHWM")
	fmt.Printf("| clients | calls | failed | RSS before | peak RSS (VmHWM) | target |\n|---|---|---|---|---|---|\n")
	verdict := "met"
	if peak > 150<<20 {
		verdict = "**missed**"
	}
	fmt.Printf("| %d | %d in %s | %d | %.0f MB | %.0f MB | ≤ 150 MB: %s |\n", clients, calls.Load(), duration, failures.Load(),
		float64(base)/(1<<20), float64(peak)/(1<<20), verdict)
	if e := firstErr.Load(); e != nil {
		fmt.Printf("\nfirst failure: %.300s\n", e)
	}
	return nil
}

// readCall is the i-th call of a client: the reads whose answers grow
// with the tickets.
func readCall(i, tickets int) (string, map[string]any) {
	id := fmt.Sprintf("inbox-%d", 1+i%tickets)
	switch i % 3 {
	case 0:
		return "get_ticket", map[string]any{"id": id}
	case 1:
		return "list_tickets", map[string]any{"workspace": "inbox", "limit": 100}
	default:
		return "get_workspace_summary", map[string]any{"workspace": "inbox"}
	}
}

// fill creates the tickets and notes, every field at its limit with the
// characters that cost the most in an answer.
func fill(ctx context.Context, cs *mcp.ClientSession, tickets, notes int) error {
	links := make([]map[string]string, board.MaxLinks)
	for i := range links {
		links[i] = map[string]string{"kind": "article", "ref": strings.Repeat("\x01", board.MaxLinkRef), "title": strings.Repeat("<", board.MaxLinkTitle)}
	}
	tags := make([]string, board.MaxTags)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%02d-%s", i, strings.Repeat("x", 25))
	}
	for n := 1; n <= tickets; n++ {
		if err := mustCall(ctx, cs, "create_ticket", map[string]any{"request_id": fmt.Sprintf("mem-%d", n), "workspace": "inbox",
			"title": strings.Repeat("<", board.MaxTitle), "body": strings.Repeat("\x01", board.MaxBody), "owner": "ai:" + strings.Repeat("n", 64),
			"due": time.Now().AddDate(0, 0, 1).Format(time.DateOnly), "tags": tags, "links": links}); err != nil {
			return err
		}
		if err := mustCall(ctx, cs, "move_ticket", map[string]any{"request_id": fmt.Sprintf("mem-wait-%d", n),
			"id": fmt.Sprintf("inbox-%d", n), "status": "waiting_ai"}); err != nil {
			return err
		}
		for i := range notes {
			if err := mustCall(ctx, cs, "add_note", map[string]any{"request_id": fmt.Sprintf("mem-%d-note-%d", n, i),
				"id": fmt.Sprintf("inbox-%d", n), "body": strings.Repeat("\x01", board.MaxNoteBody)}); err != nil {
				return err
			}
		}
	}
	return nil
}

func mustCall(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: %s", name, text(res))
	}
	return nil
}

func text(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

func session(ctx context.Context, url string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-memory", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
}

// status reads a value in kB from /proc/<pid>/status, in bytes.
func status(pid int, field string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("%s not in /proc/%d/status", field, pid)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitListening reads the server's log until it says it listens.
func waitListening(stderr interface{ Read([]byte) (int, error) }, timeout time.Duration) error {
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				found <- nil
				for sc.Scan() { // keep draining: a full pipe would block the server
					if *serverLog {
						fmt.Fprintln(os.Stderr, sc.Text())
					}
				}
				return
			}
		}
		found <- fmt.Errorf("the server exited before listening")
	}()
	select {
	case err := <-found:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("the server did not listen within %s", timeout)
	}
}
