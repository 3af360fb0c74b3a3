//go:build lambdaemulator

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/obs/obstest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// The tests in this file run the function's Lambda bootstraps under the
// runtime emulator on moto. They are built only with -tags lambdaemulator
// (make test builds them in; see internal/lambdatest), so plain go test
// neither builds the bootstraps nor needs the emulator.

// TestLambdaEmulator runs the Lambda build of the function under the AWS
// Lambda runtime interface emulator, on moto.
func TestLambdaEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and runs the Lambda emulator and moto; skipped with -short")
	}
	ctx, rie, moto := lambdatest.Prepare(t, 4*time.Minute)
	// One request at a time into moto, as DynamoDB's atomicity would have it
	// (see DynamoProxy); the function instances still race request by request.
	proxy, err := lambdatest.StartDynamoProxy(moto.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	proxy.Serialize = true
	// Writes per request_id: a write carries its request record's key,
	// R#<principal>#<request_id>. For the race rounds the proxy holds the
	// first write of a request_id until the second arrives (or 5 s pass):
	// both instances have then read no record and sent their write, so
	// every round is a real race, decided by DynamoDB's condition.
	var (
		writesMu sync.Mutex
		writes   = map[string]int{}
		partner  = map[string]chan struct{}{}
	)
	proxy.Observe = func(op string, body []byte) {
		if op != "PutItem" && op != "UpdateItem" && op != "TransactWriteItems" {
			return
		}
		seen := map[string]bool{}
		for _, m := range lamRequestKey.FindAllSubmatch(body, -1) {
			seen[string(m[1])] = true
		}
		for rid := range seen {
			writesMu.Lock()
			writes[rid]++
			n := writes[rid]
			if !strings.HasPrefix(rid, "race-") || n > 2 {
				writesMu.Unlock()
				continue
			}
			if n == 1 {
				ch := make(chan struct{})
				partner[rid] = ch
				writesMu.Unlock()
				select {
				case <-ch:
				case <-time.After(5 * time.Second):
				}
				continue
			}
			close(partner[rid])
			writesMu.Unlock()
		}
	}

	// The two builds API Gateway sends requests to (template.yaml): the
	// agents' (no board) and the board's, routed by path as the template
	// routes them.
	bootstraps := lamBuildBoth(t, ctx)
	env := func(table string) []string {
		return []string{
			envStore + "=dynamodb", envTable + "=" + table, envAuth + "=required", envRetention + "=24h",
			envBaseURL + "=", envAllowedOrigins + "=", envEndpoint + "=" + proxy.URL, envCreateTable + "=1",
			envSerializeWrites + "=1", // moto
		}
	}
	start := func(t *testing.T, function, table string) *lambdatest.Emulator {
		t.Helper()
		emu, err := lambdatest.StartEmulator(ctx, rie, bootstraps[function], env(table))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("emulator log:\n%s", emu.Logs())
			}
			emu.Stop()
		})
		return emu
	}

	t.Run("EndToEnd", func(t *testing.T) {
		table := fmt.Sprintf("lambda-e2e-%d", time.Now().UnixNano())
		agents := start(t, agentsResource, table)
		// The agents' build first: its start creates the table, which the
		// board's then finds.
		lambdaBoardIsNotFound(t, agents.Invoke)
		web := start(t, webResource, table)
		invoke := lamGateway(t, map[string]lamInvoke{agentsResource: agents.Invoke, webResource: web.Invoke})
		lambdaRequiresCredentials(t, invoke)
		lamAddPerson(t, ctx, moto.URL, table)
		lamSignIn(t, invoke)
		lamMakeToken(t, invoke)
		lambdaEndToEnd(t, invoke)
		lambdaRESTRequests(t, invoke)
		lambdaOAuth(t, invoke)

		// A real client on the 2026-07-28 revision, its HTTP carried as
		// events: it discovers the server, and its retry is a replay.
		cs := lamClient(t, invoke, lamModern)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_ticket", Arguments: lamCreateArgs})
		if err != nil || res.IsError {
			t.Fatalf("go-sdk client create_ticket: %v %+v", err, res)
		}
		var tr board.TicketResult
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &tr)
		if !tr.Replayed || tr.Ticket.ID != "inbox-1" {
			t.Fatalf("go-sdk client retry = %+v, want inbox-1 replayed", tr)
		}

		// Built once per container: one init phase for every invocation.
		for name, emu := range map[string]*lambdatest.Emulator{agentsResource: agents, webResource: web} {
			if n := strings.Count(emu.Logs(), "INIT START"); n != 1 {
				t.Errorf("%s: %d init phases, want 1 (the store and handler are built once per container)", name, n)
			}
			if d, ok := emu.InitDuration(); ok {
				t.Logf("%s init duration: %v", name, d)
			}
		}
	})

	// The race across instances: two containers share no lock, only the
	// table, so one request_id sent to both at once is decided by the
	// store's conditional writes alone.
	t.Run("TwoInstancesRaceForOneTicket", func(t *testing.T) {
		table := fmt.Sprintf("lambda-race-%d", time.Now().UnixNano())
		emus := []*lambdatest.Emulator{start(t, agentsResource, table), start(t, agentsResource, table)}
		// Both containers start at once (both create the table if missing).
		var wg sync.WaitGroup
		for _, emu := range emus {
			wg.Go(func() {
				if _, err := emu.Invoke(ctx, lamRPCEvent(lamLegacy, 1, "initialize", lamInitParams())); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		lamAddPerson(t, ctx, moto.URL, table)
		// Signed in and the token made on the board's function, it works
		// on every instance of the agents'.
		gw := lamGateway(t, map[string]lamInvoke{agentsResource: emus[0].Invoke, webResource: start(t, webResource, table).Invoke})
		lamSignIn(t, gw)
		lamMakeToken(t, gw)
		const rounds = 10
		originals := [2]int{}
		raced := 0
		for i := range rounds {
			args := map[string]any{"request_id": fmt.Sprintf("race-%d", i), "workspace": "inbox", "title": fmt.Sprintf("race %d", i)}
			type answer struct {
				res   board.TicketResult
				isErr bool
				text  string
			}
			var answers [2]answer
			gate := make(chan struct{})
			for k := range emus {
				j := (i + k) % len(emus) // neither instance always goes first
				wg.Go(func() {
					<-gate
					res, isErr, text := lamTool[board.TicketResult](t, emus[j].Invoke, lamLegacy, "create_ticket", args)
					answers[j] = answer{res, isErr, text}
				})
			}
			close(gate) // the same request_id to both instances at once
			wg.Wait()
			ids := map[string]bool{}
			for j, a := range answers {
				// A create is one transaction, with no running state: both
				// instances answer it, one with the replay.
				if a.isErr {
					t.Fatalf("round %d instance %d: tool error %q", i, j, a.text)
				}
				if !a.res.Replayed {
					originals[j]++
				}
				ids[a.res.Ticket.ID] = true
			}
			if len(ids) != 1 {
				t.Fatalf("round %d: instances answered tickets %v, want one", i, ids)
			}
			writesMu.Lock()
			if writes[args["request_id"].(string)] > 1 {
				raced++
			}
			writesMu.Unlock()
		}
		if originals[0]+originals[1] != rounds {
			t.Fatalf("original (not replayed) answers %v over %d rounds, want exactly one per round", originals, rounds)
		}
		t.Logf("%d rounds, both instances writing in %d: the write landed on instance A %d times, on B %d times, the other answering with the replay",
			rounds, raced, originals[0], originals[1])
		if raced != rounds {
			t.Fatalf("both instances sent the write in %d of %d rounds, want every round (the proxy holds the first until the second arrives)", raced, rounds)
		}

		// The witness: the table itself, read outside the function.
		testbackends.FakeAWSCredentials(t)
		client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: moto.URL})
		if err != nil {
			t.Fatal(err)
		}
		st, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		ws, err := st.GetWorkspace(ctx, "inbox")
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, n := range ws.Counts {
			total += n
		}
		if total != rounds {
			t.Fatalf("the table holds %d tickets in inbox, want %d (one per request_id)", total, rounds)
		}
		list := lamOK[board.TicketList](t, emus[1].Invoke, lamLegacy, "list_tickets", map[string]any{"workspace": "inbox", "limit": 100})
		if len(list.Tickets) != rounds {
			t.Fatalf("list_tickets = %d tickets, want %d", len(list.Tickets), rounds)
		}
	})
}

var lamRequestKey = regexp.MustCompile(`R#` + regexp.QuoteMeta(lamPrincipal) + `#([A-Za-z0-9._-]+)"`)

// lamBuildBoth builds the agents' bootstrap and the board's side by side,
// as `make build` does, keyed by the template's function names.
func lamBuildBoth(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{agentsResource: filepath.Join(dir, "agents"), webResource: filepath.Join(dir, "web")}
	build := map[string]func(context.Context, string, string, string, string) error{agentsResource: lambdatest.BuildAgents, webResource: lambdatest.Build}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for name, bin := range out {
		wg.Go(func() {
			if err := build[name](ctx, ".", bin, "", ""); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	return out
}

// The Linux build under the Lambda runtime emulator, on moto: a request's
// log line is JSON with a level and API Gateway's request id from the
// event, and its EMF line (on by default in Lambda) is valid and carries the
// same id.
func TestLambdaEmulatorLogsAndMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and runs the Lambda emulator and moto; skipped with -short")
	}
	ctx, rie, moto := lambdatest.Prepare(t, 4*time.Minute)
	// /healthz is the agents' function's (template.yaml).
	bootstrap := lambdatest.Bootstrap(t, ctx, lambdatest.BuildAgents)
	emu, err := lambdatest.StartEmulator(ctx, rie, bootstrap, []string{
		envStore + "=dynamodb", envTable + "=" + fmt.Sprintf("obs-%d", time.Now().UnixNano()), envAuth + "=required",
		envEndpoint + "=" + moto.URL, envCreateTable + "=1", envSerializeWrites + "=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer emu.Stop()

	// The store opens in the background (creating the table on a cold
	// moto can take a while on a loaded machine): /healthz answers 503
	// until it is open. Wait for that first, under other request ids.
	open := time.Now().Add(time.Minute)
	for i := 0; ; i++ {
		ev := lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/healthz", nil, nil)
		ev.RequestContext.RequestID = fmt.Sprintf("ObsRieWarm%d=", i)
		resp, err := emu.Invoke(ctx, ev)
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(open) {
			t.Fatalf("healthz never answered 200 within a minute: %v %+v", err, resp)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ev := lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/healthz", nil, nil)
	ev.RequestContext.RequestID = "ObsRieReq1="
	resp, err := emu.Invoke(ctx, ev)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %+v", err, resp)
	}
	var line map[string]any
	var metrics obstest.EMF
	deadline := time.Now().Add(10 * time.Second)
	for (line == nil || metrics.Members == nil) && time.Now().Before(deadline) {
		for _, l := range strings.Split(emu.Logs(), "\n") {
			if !strings.Contains(l, `"ObsRieReq1="`) {
				continue
			}
			l = l[strings.Index(l, "{"):] // past anything the emulator puts before a line
			if strings.Contains(l, `"_aws"`) {
				if e, err := obstest.ParseEMF([]byte(l)); err != nil {
					t.Fatalf("invalid EMF (%v): %s", err, l)
				} else {
					metrics = e
				}
				continue
			}
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("the request line is not JSON: %s", l)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if line == nil || metrics.Members == nil {
		t.Fatalf("no request line or no EMF line with the event's request id:\n%s", emu.Logs())
	}
	if line["level"] != "INFO" || line["msg"] != "request" || line["surface"] != "health" || line["status"] != 200.0 {
		t.Errorf("request line: %v", line)
	}
	if metrics.Members[obs.DimSurface] != "health" || metrics.Value(obs.MetricCalls) != 1 {
		t.Errorf("metrics: %v", metrics.Members)
	}
}
