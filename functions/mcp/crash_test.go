//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// The crash test runs the real binary: a burst of concurrent create_ticket
// calls, SIGKILL once crashKillAfter of them are acknowledged, a restart on
// the same data, and then the checks: every acknowledged write is there
// exactly once (over MCP and in the SQLite file itself), and retrying every
// request_id of the burst converges to one ticket each.
const (
	crashWorkers    = 16
	crashPerWorker  = 25 // crashWorkers*crashPerWorker request_ids in all
	crashKillAfter  = 120
	crashAuthor     = "ai:crash"
	crashWorkspace  = "inbox"
	crashStartLimit = 30 * time.Second // building aside, each phase is far faster
)

func TestCrashDuringBurstKeepsEveryAcknowledgedWriteOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and SIGKILLs the server binary; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	bin := buildServer(t)
	data := t.TempDir()
	t.Logf("built the server in %v", time.Since(start).Round(time.Millisecond))

	// Every request_id of the burst, in the order each worker sends them.
	ids := make([][]string, crashWorkers)
	var all []string
	for w := range ids {
		for i := range crashPerWorker {
			id := fmt.Sprintf("crash-w%02d-%03d", w, i)
			ids[w] = append(ids[w], id)
			all = append(all, id)
		}
	}

	// Phase 1: the burst, killed mid-way.
	srv := startServer(ctx, t, bin, data)
	acked := burstUntilKilled(ctx, t, srv, ids)
	if len(acked) < crashKillAfter || len(acked) >= len(all) {
		t.Fatalf("%d of %d writes acknowledged: the kill did not land mid-burst", len(acked), len(all))
	}
	t.Logf("burst: %d of %d request_ids acknowledged before the SIGKILL took effect (at %v)", len(acked), len(all), time.Since(start).Round(time.Millisecond))

	// Phase 2: the independent witness, the SQLite file read outside MCP
	// while no server runs.
	w1 := readWitness(ctx, t, data, all)
	for rid, tid := range acked {
		got, ok := w1.requests[rid]
		if !ok {
			t.Errorf("acknowledged %s (ticket %s) has no request record in the file", rid, tid)
			continue
		}
		if got != tid {
			t.Errorf("acknowledged %s: acknowledged as %s, recorded as %s", rid, tid, got)
		}
		if tk, ok := w1.tickets[tid]; !ok || tk.Title != titleFor(rid) {
			t.Errorf("acknowledged %s: ticket %s missing or wrong in the file (%+v)", rid, tid, tk)
		}
	}
	lostAnswers := 0
	for rid := range w1.requests {
		if _, ok := acked[rid]; !ok {
			lostAnswers++ // committed, but the answer died with the process
		}
	}
	t.Logf("after the kill the file holds %d tickets: %d acknowledged, %d committed without an answer",
		len(w1.tickets), len(acked), lostAnswers)

	// Phase 3: restart on the same data and look over MCP.
	srv = startServer(ctx, t, bin, data)
	cs := connect(ctx, t, srv)
	for rid, tid := range acked {
		d, err := callTool[board.TicketDetail](ctx, cs, "get_ticket", map[string]any{"id": tid})
		if err != nil {
			t.Errorf("get_ticket %s (acknowledged for %s) after restart: %v", tid, rid, err)
			continue
		}
		if d.Ticket.Title != titleFor(rid) || d.Ticket.CreatedBy != crashAuthor {
			t.Errorf("get_ticket %s: title %q created_by %q, want %q by %s", tid, d.Ticket.Title, d.Ticket.CreatedBy, titleFor(rid), crashAuthor)
		}
		created := 0
		for _, ev := range d.History {
			if ev.Type == board.EventTicketCreated {
				created++
				if ev.RequestID != rid {
					t.Errorf("get_ticket %s: ticket.created carries request_id %q, want %q", tid, ev.RequestID, rid)
				}
			}
		}
		if created != 1 {
			t.Errorf("get_ticket %s: %d ticket.created events, want 1", tid, created)
		}
	}
	listed := listAll(ctx, t, cs)
	checkListing(t, "after restart", listed, w1.requests)

	for _, rid := range all {
		l, err := callTool[ledger.Lookup](ctx, cs, "find_request", map[string]any{"request_id": rid})
		if err != nil {
			t.Errorf("find_request %s: %v", rid, err)
			continue
		}
		tid, committed := w1.requests[rid]
		switch {
		case committed && l.Status != ledger.LookupDone:
			t.Errorf("find_request %s: status %s, want done (the file has it as %s)", rid, l.Status, tid)
		case committed:
			var res board.TicketResult
			if err := json.Unmarshal(l.Result, &res); err != nil || res.Ticket.ID != tid {
				t.Errorf("find_request %s: result %s, want ticket %s (%v)", rid, l.Result, tid, err)
			}
		case l.Status != ledger.LookupUnknown:
			t.Errorf("find_request %s: status %s, want unknown (nothing committed before the kill)", rid, l.Status)
		}
	}

	// Phase 4: retry every request_id of the burst, acknowledged or not,
	// concurrently and with the same arguments; then once more.
	first := retryAll(ctx, t, cs, ids)
	for _, rid := range all {
		r, ok := first[rid]
		if !ok {
			continue // retryAll reported it
		}
		tid, committed := w1.requests[rid]
		switch {
		case committed && (!r.Replayed || r.Ticket.ID != tid):
			_, wasAcked := acked[rid]
			t.Errorf("retry %s (acknowledged %v): replayed %v ticket %s, want replayed true ticket %s", rid, wasAcked, r.Replayed, r.Ticket.ID, tid)
		case !committed && r.Replayed:
			t.Errorf("retry %s: replayed true for a request the file never committed (ticket %s)", rid, r.Ticket.ID)
		}
	}
	t.Logf("first retry of all %d request_ids done at %v", len(all), time.Since(start).Round(time.Millisecond))
	second := retryAll(ctx, t, cs, ids)
	for rid, r := range second {
		if f, ok := first[rid]; ok && (!r.Replayed || r.Ticket.ID != f.Ticket.ID) {
			t.Errorf("second retry %s: replayed %v ticket %s, want replayed true ticket %s", rid, r.Replayed, r.Ticket.ID, f.Ticket.ID)
		}
	}
	final := make(map[string]string, len(first))
	for rid, r := range first {
		final[rid] = r.Ticket.ID
	}
	listed = listAll(ctx, t, cs)
	if len(listed) != len(all) {
		t.Errorf("after retrying every request_id: %d tickets, want %d (one per distinct request_id)", len(listed), len(all))
	}
	checkListing(t, "after the retries", listed, final)
	cs.Close()

	// Phase 5: stop the server cleanly and read the file once more.
	srv.stop(t)
	w2 := readWitness(ctx, t, data, all)
	if len(w2.tickets) != len(all) || len(w2.requests) != len(all) {
		t.Errorf("file at the end: %d tickets and %d request records, want %d of each", len(w2.tickets), len(w2.requests), len(all))
	}
	for rid, tid := range final {
		if w2.requests[rid] != tid {
			t.Errorf("file at the end: %s recorded as %q, answered as %s", rid, w2.requests[rid], tid)
		}
	}
	t.Logf("recovered: all %d acknowledged writes present once; %d request_ids converged to %d tickets (at %v)",
		len(acked), len(all), len(w2.tickets), time.Since(start).Round(time.Millisecond))
}

func titleFor(rid string) string { return "crash test " + rid }

func createArgs(rid string) map[string]any {
	return map[string]any{"request_id": rid, "workspace": crashWorkspace, "title": titleFor(rid), "tags": []string{"crash"}}
}

// burstUntilKilled runs the workers and SIGKILLs the server once
// crashKillAfter writes are acknowledged. It returns request_id → ticket id
// of every acknowledged write, and waits for the process to be gone.
func burstUntilKilled(ctx context.Context, t *testing.T, srv *server, ids [][]string) map[string]string {
	t.Helper()
	var (
		mu     sync.Mutex
		acked  = map[string]string{}
		count  atomic.Int64
		killed atomic.Bool
		fire   = make(chan struct{})
		once   sync.Once
	)
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		select {
		case <-fire:
			killed.Store(true)
			srv.kill()
		case <-ctx.Done():
		}
	}()
	var wg sync.WaitGroup
	for w := range ids {
		cs := connect(ctx, t, srv) // one session (and client) per worker
		wg.Go(func() {
			defer cs.Close()
			for _, rid := range ids[w] {
				r, err := callTool[board.TicketResult](ctx, cs, "create_ticket", createArgs(rid))
				if err != nil {
					// After the kill every outstanding call fails; before it, none may.
					if !killed.Load() {
						t.Errorf("create_ticket %s before the kill: %v", rid, err)
					}
					return
				}
				if r.Replayed || r.RequestID != rid || r.Ticket.Title != titleFor(rid) {
					t.Errorf("create_ticket %s: unexpected answer %+v", rid, r)
				}
				mu.Lock()
				acked[rid] = r.Ticket.ID
				mu.Unlock()
				if count.Add(1) == crashKillAfter {
					once.Do(func() { close(fire) })
				}
			}
		})
	}
	wg.Wait()
	once.Do(func() { close(fire) }) // too few acknowledgements: kill anyway
	<-killerDone
	srv.waitExit(t)
	mu.Lock()
	defer mu.Unlock()
	return acked
}

// retryAll sends create_ticket again for every request_id with the same
// arguments, from as many workers as the burst had.
func retryAll(ctx context.Context, t *testing.T, cs *mcp.ClientSession, ids [][]string) map[string]board.TicketResult {
	t.Helper()
	var mu sync.Mutex
	out := map[string]board.TicketResult{}
	var wg sync.WaitGroup
	for w := range ids {
		wg.Go(func() {
			for _, rid := range ids[w] {
				r, err := callTool[board.TicketResult](ctx, cs, "create_ticket", createArgs(rid))
				if err != nil {
					t.Errorf("retry create_ticket %s: %v", rid, err)
					continue
				}
				if r.RequestID != rid || r.Ticket.Title != titleFor(rid) {
					t.Errorf("retry create_ticket %s: answered for %s / %q", rid, r.RequestID, r.Ticket.Title)
				}
				mu.Lock()
				out[rid] = r
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

// listAll pages through the workspace with list_tickets.
func listAll(ctx context.Context, t *testing.T, cs *mcp.ClientSession) []board.Ticket {
	t.Helper()
	var all []board.Ticket
	args := map[string]any{"workspace": crashWorkspace, "limit": 100}
	for range 1000 {
		page, err := callTool[board.TicketList](ctx, cs, "list_tickets", args)
		if err != nil {
			t.Fatalf("list_tickets: %v", err)
		}
		all = append(all, page.Tickets...)
		if page.NextCursor == nil {
			return all
		}
		args["cursor"] = *page.NextCursor
	}
	t.Fatal("list_tickets never reached the last page")
	return nil
}

// checkListing: no id or title twice, and every expected request_id's
// ticket listed once under its own title.
func checkListing(t *testing.T, when string, listed []board.Ticket, want map[string]string) {
	t.Helper()
	ids, titles := map[string]int{}, map[string]int{}
	for _, tk := range listed {
		ids[tk.ID]++
		titles[tk.Title]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("%s: ticket %s listed %d times", when, id, n)
		}
	}
	for title, n := range titles {
		if n > 1 {
			t.Errorf("%s: title %q appears on %d tickets", when, title, n)
		}
	}
	byID := map[string]board.Ticket{}
	for _, tk := range listed {
		byID[tk.ID] = tk
	}
	for rid, tid := range want {
		if tk, ok := byID[tid]; !ok || tk.Title != titleFor(rid) {
			t.Errorf("%s: ticket %s of %s not listed with its title", when, tid, rid)
		}
	}
	if len(listed) != len(want) {
		t.Errorf("%s: %d tickets listed, want %d", when, len(listed), len(want))
	}
}

// witness is what the SQLite file says, read without the server.
type witness struct {
	tickets  map[string]board.Ticket // id → ticket
	requests map[string]string       // request_id → ticket id of the stored result
}

// readWitness opens the file with internal/sqlite (no server running) and
// reads every ticket and every request record of the burst; then checks
// the file's integrity and numbering with plain SQL.
func readWitness(ctx context.Context, t *testing.T, dir string, rids []string) witness {
	t.Helper()
	st, err := sqlite.OpenDir(ctx, dir)
	if err != nil {
		t.Fatalf("opening the data directory as a witness: %v", err)
	}
	w := witness{tickets: map[string]board.Ticket{}, requests: map[string]string{}}
	titles := map[string]int{}
	var before int64
	for {
		page, err := st.ListTickets(ctx, board.TicketQuery{Workspace: crashWorkspace, Before: before, Limit: board.MaxLimit})
		if err != nil {
			t.Fatalf("witness: listing tickets: %v", err)
		}
		for _, tk := range page.Tickets {
			if _, dup := w.tickets[tk.ID]; dup {
				t.Errorf("witness: ticket %s read twice", tk.ID)
			}
			w.tickets[tk.ID] = tk
			titles[tk.Title]++
			before = tk.Number
		}
		if !page.More {
			break
		}
	}
	for title, n := range titles {
		if n > 1 {
			t.Errorf("witness: title %q stored %d times", title, n)
		}
	}
	now := time.Now()
	for _, rid := range rids {
		rec, err := st.GetRequest(ctx, ledger.Key{Principal: crashAuthor, RequestID: rid}, now)
		if errors.Is(err, board.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatalf("witness: request %s: %v", rid, err)
		}
		var res board.TicketResult
		if rec.Status != ledger.StatusDone || json.Unmarshal(rec.Result, &res) != nil || res.Ticket.ID == "" {
			t.Errorf("witness: request %s is %s with result %s", rid, rec.Status, rec.Result)
			continue
		}
		w.requests[rid] = res.Ticket.ID
		if tk, ok := w.tickets[res.Ticket.ID]; !ok || tk.Title != titleFor(rid) {
			t.Errorf("witness: request %s names ticket %s, which is missing or another's", rid, res.Ticket.ID)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatalf("witness: closing: %v", err)
	}
	if len(w.tickets) != len(w.requests) {
		t.Errorf("witness: %d tickets but %d request records: a ticket without its record or the reverse", len(w.tickets), len(w.requests))
	}

	// Plain SQL, read-only: the file is sound and numbers have no gaps (a
	// transaction cut short by the kill must leave no trace, counter included).
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?mode=ro")
	if err != nil {
		t.Fatalf("witness: %v", err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("witness: integrity_check = %q, %v", check, err)
	}
	var n, maxNumber, last int64
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(number), 0) FROM tickets WHERE workspace = ?`, crashWorkspace).Scan(&n, &maxNumber); err != nil {
		t.Fatalf("witness: %v", err)
	}
	if err := db.QueryRowContext(ctx, `SELECT last_number FROM workspaces WHERE slug = ?`, crashWorkspace).Scan(&last); err != nil {
		t.Fatalf("witness: %v", err)
	}
	if n != int64(len(w.tickets)) || maxNumber != n || last != n {
		t.Errorf("witness: %d tickets, highest number %d, counter %d: want all equal (no gaps, no lost counter)", n, maxNumber, last)
	}
	return w
}

// server is one run of the binary.
type server struct {
	cmd    *exec.Cmd
	url    string
	exited chan struct{} // closed once stderr is drained and Wait returned
	err    error         // Wait's answer, valid after exited
	log    *lockedBuffer
	client *http.Client
}

var listeningLine = regexp.MustCompile(`ticket-ledger listening on (http://\S+/mcp) \(store (?:sqlite|dynamodb)\)`)

// buildServer builds ./functions/mcp into a temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "ticket-ledger")
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer runs the binary on a free loopback port (the kernel picks it:
// LEDGER_ADDR=127.0.0.1:0) and waits for the line that says it listens;
// env adds settings.
func startServer(ctx context.Context, t *testing.T, bin, data string, env ...string) *server {
	t.Helper()
	cmd := exec.Command(bin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEDGER_") && !strings.HasPrefix(kv, "DYNAMODB_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LEDGER_ADDR=127.0.0.1:0", "LEDGER_DATA="+data, "LEDGER_AUTHOR="+crashAuthor,
		"LEDGER_BASE_URL=http://ledger.test", "LEDGER_STORE=sqlite")
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	s := &server{cmd: cmd, exited: make(chan struct{}), log: &lockedBuffer{}}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.log.WriteString(line + "\n")
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.log.String())
		}
	})
	timer := time.NewTimer(crashStartLimit)
	defer timer.Stop()
	select {
	case s.url = <-addr:
	case <-s.exited:
		t.Fatalf("server exited before listening: %v\n%s", s.err, s.log.String())
	case <-timer.C:
		t.Fatalf("server did not report listening within %v:\n%s", crashStartLimit, s.log.String())
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	s.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: crashWorkers * 2}}
	t.Cleanup(s.client.CloseIdleConnections)
	return s
}

func (s *server) kill() { s.cmd.Process.Signal(syscall.SIGKILL) }

// stop asks for a clean shutdown and expects exit status 0.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	s.waitExit(t)
	if s.err != nil {
		t.Errorf("server did not stop cleanly: %v\n%s", s.err, s.log.String())
	}
}

func (s *server) waitExit(t *testing.T) {
	t.Helper()
	timer := time.NewTimer(crashStartLimit)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-timer.C:
		t.Fatalf("server still running %v after the signal", crashStartLimit)
	}
}

// connect opens an MCP session without retries (a dead server must fail
// the call at once) and without the standalone SSE stream.
func connect(ctx context.Context, t *testing.T, s *server) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "crash-test", Version: "0.0.1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: s.url, HTTPClient: s.client, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", s.url, err)
	}
	return cs
}

// callTool calls a tool and decodes its structured result; a tool error
// (isError) comes back as an error carrying its text.
func callTool[T any](ctx context.Context, cs *mcp.ClientSession, name string, args any) (T, error) {
	var out T
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return out, err
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return out, fmt.Errorf("%s: tool error: %s", name, strings.Join(texts, "; "))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("%s: decoding %s: %w", name, raw, err)
	}
	return out, nil
}

// lockedBuffer collects the server's stderr for failure reports.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
