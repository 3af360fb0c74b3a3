// Command coldstart measures Lambda cold starts under the AWS Lambda runtime
// interface emulator: ticket-ledger's agents' bootstrap (functions/mcp built
// as McpFunction is, without the board: the Makefile's AGENTS_BUILD; on DynamoDB
// served by moto, LEDGER_AUTH=required as on Lambda) against a minimal go-sdk
// function with one no-op tool (bench/noop-lambda), alternating in the same
// run. Every sample is a fresh execution environment whose first event is
// the one measured:
//
//   - "initialize, no credential": an MCP initialize without a credential.
//     ticket-ledger must refuse it (401 with a Bearer challenge: the MCP
//     authorization spec lets no request through without a token when
//     authorization is required); the no-op function answers it. Neither
//     reads a store, so the two first responses compare the functions' own
//     cold-start work: process start, package init, building the handler.
//     The target (first response within 1.3× the no-op's) is held to this
//     one.
//   - "tools/call, signed in": a create_ticket carrying a signed-in person's
//     session (or with -credential token an agent's API token) against a
//     call of the no-op tool (no-op). Ours also checks the credential (the
//     session or token, then its person: two consistent reads) and writes
//     the ticket (one transaction); the no-op
//     reads and writes nothing. The difference is mostly those round trips,
//     so the run also measures one DynamoDB read on the same moto. A create
//     also looks up similar tickets after its write (a Query per title word
//     and a BatchGetItem).
//   - "get_ticket, signed in": a read of a seeded ticket, cold and then warm:
//     what the credential check costs beside one read, with no write. A
//     warm instance reads the credential and its person in one request.
//
// For each cold start it records the init duration the emulator reports
// (bootstrap started until it asks for its first event) and the first
// response (the event posted until its answer: process start, init and the
// invocation), then a second, warm call; it prints medians, ratios and the
// binary sizes.
//
// -before DIR measures a second build of functions/mcp, from the module
// copy at DIR (an earlier commit; its AGENTS_BUILD, or its LAMBDA_BUILD when
// it deployed one function), in the same run and environments, so that
// a change is measured side by side rather than across runs of a noisy
// machine.
//
//	make bench-coldstart            # or: go run ./bench/cmd/coldstart -runs 15
//	git archive main | tar -x -C /tmp/main && make bench-coldstart BENCHFLAGS='-before /tmp/main
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// target is the largest first-response ratio (ours / no-op) wanted for the
// unauthenticated initialize, and maxSizeMiB the largest arm64 bootstrap.
const (
	target     = 1.3
	maxSizeMiB = 12.0
)

type sample struct{ init, first, warm time.Duration }

// credential is -credential; beforeDir is -before.
var credential, beforeDir string

func main() {
	runs := flag.Int("runs", 9, "cold starts of each function in each scenario")
	flag.StringVar(&beforeDir, "before", "", "the root of another copy of the module (an earlier commit, e.g. from git archive), whose functions/mcp is measured in the same run as \"before\"")
	flag.StringVar(&credential, "credential", "session", "what the signed-in calls carry: session (a signed-in person's cookie) or token (an agent's API token, as Claude Code sends it)")
	flag.Parse()
	if credential != "session" && credential != "token" {
		fmt.Fprintln(os.Stderr, "coldstart: -credential is session or token")
		os.Exit(2)
	}
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

// function is one bootstrap with its environment.
type function struct {
	name, bin string
	env       []string
	ours      bool
}

// scenario is what the first event of a cold start is.
type scenario struct {
	name string
	// first is the first event's body and headers for f, and what its
	// answer must be.
	first func(f function, n int) (body []byte, headers map[string]string, check func(resp response) error)
	// warm is the second, signed-in call's body for ticket-ledger; nil
	// means a create_ticket.
	warm func() []byte
}

type response struct {
	status  int
	headers map[string]string
	body    string
}

func run(runs int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	rie, err := lambdatest.RIEPath()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "coldstart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// ticket-ledger is the agents' function (McpFunction, which /mcp
	// reaches); web, the board's function, is only sized.
	type binary struct {
		name, dir, pkg string
		build          func(ctx context.Context, dir, pkg, out, goos, goarch string) error
	}
	bins := []binary{{"ticket-ledger", "", "./functions/mcp", lambdatest.BuildAgentsIn}, {"noop", "", "./bench/noop-lambda", lambdatest.BuildIn},
		{"web", "", "./functions/mcp", lambdatest.BuildIn}}
	if beforeDir != "" {
		bins = slices.Insert(bins, 1, binary{"before", beforeDir, "./functions/mcp", lambdatest.BuildAgentsIn})
	}
	sizes := map[string][2]int64{}
	for _, f := range bins {
		var sz [2]int64
		for i, arch := range []string{"", "arm64"} {
			goos := ""
			if arch != "" {
				goos = "linux"
			}
			out := filepath.Join(dir, f.name+"-"+arch)
			if err := f.build(ctx, f.dir, f.pkg, out, goos, arch); err != nil {
				return err
			}
			fi, err := os.Stat(out)
			if err != nil {
				return err
			}
			sz[i] = fi.Size()
		}
		sizes[f.name] = sz
	}

	moto, err := lambdatest.StartMoto(ctx)
	if err != nil {
		return err
	}
	defer moto.Stop()
	// The table exists and is seeded before the first cold start, as when
	// deployed: the function's init is its own work, not table creation.
	const table = "coldstart"
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1"} {
		os.Setenv(k, v)
	}
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: moto.URL})
	if err != nil {
		return err
	}
	st, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	secret := auth.NewSecret()
	now := time.Now()
	if err := st.CreatePerson(ctx, board.Person{Handle: "bench", Name: "bench", Role: board.RoleMember, CreatedAt: now}, nil); err != nil {
		return err
	}
	if err := st.CreateSession(ctx, board.Session{IDHash: auth.HashSecret(secret), Handle: "bench", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		return err
	}
	// What the signed-in calls carry (the no-op function ignores it).
	cred := [2]string{"cookie", auth.SessionCookie + "=" + secret}
	if credential == "token" {
		// An agent's token: the token and its person are read on each call,
		// and its use recorded at most once a minute (one conditional
		// UpdateItem; the runs here are seconds apart, so only the first
		// cold start pays it).
		tokens := auth.NewAccounts(auth.Config{Store: st})
		made, err := tokens.CreateToken(board.WithPrincipal(ctx, auth.Operator), auth.CreateTokenInput{Handle: "bench", Agent: "bench"})
		if err != nil {
			return err
		}
		cred = [2]string{"authorization", "Bearer " + made.Secret}
	}

	// The ticket the signed-in read asks for: a read's first call pays the
	// credential check and the read alone, with no write after it (a
	// create also looks up similar tickets once it has written).
	seeder, err := board.NewService(board.Config{Store: st, BaseURL: "https://board.example", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	seeded, err := seeder.CreateTicket(board.WithPrincipal(ctx, auth.Operator), board.CreateTicketInput{
		RequestID: "coldstart-seed",
		Workspace: "inbox",
		NewTicket: board.NewTicket{Title: "read by the cold starts"},
	})
	if err != nil {
		return err
	}
	readCall := func() []byte {
		return rpc("tools/call", map[string]any{"name": "get_ticket", "arguments": map[string]any{"id": seeded.Ticket.ID}})
	}

	ledgerEnv := []string{"LEDGER_STORE=dynamodb", "LEDGER_TABLE=" + table, "DYNAMODB_ENDPOINT=" + moto.URL, "LEDGER_AUTH=required", "LEDGER_CREATE_TABLE=0"}
	// ticket-ledger twice: with LEDGER_BASE_URL (the BaseUrl parameter) the
	// handler can be built during init; without it (the template's
	// default), the base URL comes from the first event.
	fns := []function{
		{"ticket-ledger", "ticket-ledger", append(slices.Clone(ledgerEnv), "LEDGER_BASE_URL=https://board.example"), true},
		{"  no BaseUrl", "ticket-ledger", ledgerEnv, true},
		{"noop", "noop", nil, false},
	}
	if beforeDir != "" {
		// The earlier version, with the same environment, in the same run.
		fns = slices.Insert(fns, 2,
			function{"before", "before", append(slices.Clone(ledgerEnv), "LEDGER_BASE_URL=https://board.example"), true},
			function{"  no BaseUrl", "before", ledgerEnv, true})
	}
	headers := func(extra ...string) map[string]string {
		h := map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream"}
		for i := 0; i+1 < len(extra); i += 2 {
			h[extra[i]] = extra[i+1]
		}
		return h
	}
	scenarios := []scenario{
		{name: "initialize, no credential", first: func(f function, _ int) ([]byte, map[string]string, func(response) error) {
			body := rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "coldstart", "version": "1"}})
			return body, headers(), func(r response) error {
				if !f.ours {
					return wantOK(r)
				}
				if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.headers["www-authenticate"], "Bearer") {
					return fmt.Errorf("want 401 with a Bearer challenge, got HTTP %d %v %s", r.status, r.headers, r.body)
				}
				return nil
			}
		}},
		{name: "tools/call, signed in", first: func(f function, n int) ([]byte, map[string]string, func(response) error) {
			if !f.ours {
				return rpc("tools/call", map[string]any{"name": "noop", "arguments": map[string]any{"request_id": fmt.Sprint(n)}}),
					headers("mcp-protocol-version", "2025-11-25"), wantOK
			}
			return createCall(n), headers("mcp-protocol-version", "2025-11-25", cred[0], cred[1]), wantOK
		}},
		{name: "get_ticket, signed in", first: func(f function, n int) ([]byte, map[string]string, func(response) error) {
			if !f.ours {
				return rpc("tools/call", map[string]any{"name": "noop", "arguments": map[string]any{"request_id": fmt.Sprint(n)}}),
					headers("mcp-protocol-version", "2025-11-25"), wantOK
			}
			return readCall(), headers("mcp-protocol-version", "2025-11-25", cred[0], cred[1]), wantOK
		}, warm: readCall},
	}

	rtt, err := readRoundTrip(ctx, client, table)
	if err != nil {
		return err
	}

	samples := map[string][]sample{} // by scenario + "\x00" + function
	for i := range runs {
		for _, sc := range scenarios {
			for k := range fns {
				f := fns[(i+k)%len(fns)] // rotate which goes first
				body, h, check := sc.first(f, i)
				s, err := coldStart(ctx, rie, filepath.Join(dir, f.bin+"-"), f, body, h, check, cred, sc.warm)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", sc.name, strings.TrimSpace(f.name), err)
				}
				samples[sc.name+"\x00"+f.key()] = append(samples[sc.name+"\x00"+f.key()], s)
			}
		}
	}

	fmt.Printf("Cold start under aws-lambda-rie (%s/%s, %d cold starts of each function per scenario, medians; min–max; signed-in calls carry a %s)\n",
		runtime.GOOS, runtime.GOARCH, runs, credential)
	fmt.Printf("load average at the end: %s; one consistent GetItem on this moto: %s (median of 30, warm client)\n", loadAverage(), ms(rtt))
	for _, sc := range scenarios {
		fmt.Printf("\n%s\n", sc.name)
		fmt.Printf("%-14s %26s %26s %26s\n", "function", "init duration", "first response", "second call (warm)")
		med := map[string]sample{}
		for _, f := range fns {
			ss := samples[sc.name+"\x00"+f.key()]
			m := sample{
				init:  median(ss, func(s sample) time.Duration { return s.init }),
				first: median(ss, func(s sample) time.Duration { return s.first }),
				warm:  median(ss, func(s sample) time.Duration { return s.warm }),
			}
			med[f.key()] = m
			fmt.Printf("%-14s %26s %26s %26s\n", f.name,
				span(ss, m.init, func(s sample) time.Duration { return s.init }),
				span(ss, m.first, func(s sample) time.Duration { return s.first }),
				span(ss, m.warm, func(s sample) time.Duration { return s.warm }))
		}
		base := med[fns[len(fns)-1].key()]
		for _, f := range fns {
			if !f.ours {
				continue
			}
			ours := med[f.key()]
			ratio := float64(ours.first) / float64(base.first)
			verdict := ""
			if sc.name == scenarios[0].name {
				verdict = fmt.Sprintf(" (target ≤ %.1f×: met)", target)
				if ratio > target {
					verdict = fmt.Sprintf(" (target ≤ %.1f×: MISSED)", target)
				}
			} else {
				verdict = fmt.Sprintf("; ours − noop = %s = %.1f DynamoDB reads of this moto", ms(ours.first-base.first),
					float64(ours.first-base.first)/float64(rtt))
			}
			fmt.Printf("ratio %-22s / noop: init %.2f×, first response %.2f×%s\n",
				f.label(), float64(ours.init)/float64(base.init), ratio, verdict)
		}
	}
	fmt.Printf("\n%-14s %13s %13s\n", "binary", "host", "arm64")
	for _, b := range bins {
		fmt.Printf("%-14s %10.1f MiB %10.1f MiB\n", b.name, mib(sizes[b.name][0]), mib(sizes[b.name][1]))
	}
	arm := mib(sizes["ticket-ledger"][1])
	verdict := "met"
	if arm > maxSizeMiB {
		verdict = fmt.Sprintf("MISSED by %.1f MiB", arm-maxSizeMiB)
	}
	fmt.Printf("ticket-ledger arm64 bootstrap %.1f MiB (target ≤ %.0f MiB: %s), %.2f× the no-op's\n", arm, maxSizeMiB, verdict,
		float64(sizes["ticket-ledger"][1])/float64(sizes["noop"][1]))
	if beforeDir != "" {
		fmt.Printf("before: arm64 bootstrap %.1f MiB (%d bytes; this tree's %d bytes)\n", mib(sizes["before"][1]), sizes["before"][1], sizes["ticket-ledger"][1])
	}
	return nil
}

// label names a function in the ratio lines: an indented row ("no
// BaseUrl") with the build it belongs to.
func (f function) label() string {
	if strings.HasPrefix(f.name, " ") {
		return f.bin + ", " + strings.TrimSpace(f.name)
	}
	return f.name
}

// key tells the functions apart (two builds have a "no BaseUrl" row).
func (f function) key() string { return f.bin + "\x00" + f.name }

func createCall(n int) []byte {
	return rpc("tools/call", map[string]any{"name": "create_ticket", "arguments": map[string]any{
		"request_id": fmt.Sprintf("cold-%d-%d", time.Now().UnixNano(), n), "workspace": "inbox", "title": "cold start"}})
}

func wantOK(r response) error {
	var msg struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &msg) != nil || msg.Error != nil || msg.Result == nil || msg.Result.IsError {
		return fmt.Errorf("want a result, got HTTP %d %s", r.status, r.body)
	}
	return nil
}

// coldStart starts a fresh execution environment, sends it the first event
// (the cold start) and then a signed-in tool call (warm).
func coldStart(ctx context.Context, rie, bootstrap string, f function, body []byte, headers map[string]string,
	check func(response) error, cred [2]string, warmCall func() []byte) (sample, error) {
	var s sample
	emu, err := lambdatest.StartEmulator(ctx, rie, bootstrap, f.env)
	if err != nil {
		return s, err
	}
	defer emu.Stop()
	const domain = "bench.execute-api.us-east-1.amazonaws.com"
	start := time.Now()
	resp, err := emu.Invoke(ctx, lambdatest.HTTPEvent(domain, http.MethodPost, "/mcp", headers, body))
	s.first = time.Since(start)
	if err != nil {
		return s, err
	}
	if err := check(response{resp.StatusCode, lower(resp.Headers), resp.Body}); err != nil {
		return s, fmt.Errorf("first event: %w", err)
	}
	if s.init, err = emu.WaitInitDuration(ctx, 10*time.Second); err != nil {
		return s, err
	}
	warm := rpc("tools/call", map[string]any{"name": "noop", "arguments": map[string]any{"request_id": "warm"}})
	switch {
	case f.ours && warmCall != nil:
		warm = warmCall()
	case f.ours:
		warm = createCall(-1)
	}
	start = time.Now()
	resp, err = emu.Invoke(ctx, lambdatest.HTTPEvent(domain, http.MethodPost, "/mcp",
		map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream",
			"mcp-protocol-version": "2025-11-25", cred[0]: cred[1]}, warm))
	s.warm = time.Since(start)
	if err != nil {
		return s, err
	}
	if err := wantOK(response{resp.StatusCode, lower(resp.Headers), resp.Body}); err != nil {
		return s, fmt.Errorf("warm call: %w", err)
	}
	return s, nil
}

// readRoundTrip is the median time of one consistent GetItem on the table,
// what a credential check costs per read.
func readRoundTrip(ctx context.Context, client *dynamodb.Client, table string) (time.Duration, error) {
	var ds []time.Duration
	for range 30 {
		start := time.Now()
		_, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "coldstart"}, "sk": &types.AttributeValueMemberS{Value: "rtt"}}})
		if err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

func lower(h map[string]string) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[strings.ToLower(k)] = v
	}
	return out
}

func rpc(method string, params map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return b
}

func median(ss []sample, f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func span(ss []sample, med time.Duration, f func(sample) time.Duration) string {
	lo, hi := f(ss[0]), f(ss[0])
	for _, s := range ss {
		lo, hi = min(lo, f(s)), max(hi, f(s))
	}
	return fmt.Sprintf("%s (%s–%s)", ms(med), ms(lo), ms(hi))
}

// loadAverage is the machine's 1, 5 and 15 minute load averages (Linux).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mib(n int64) float64 { return float64(n) / (1 << 20) }
