// Command coldstart measures Lambda cold starts under the AWS Lambda runtime
// interface emulator: ticket-ledger's bootstrap (functions/mcp, on DynamoDB
// served by moto) against a minimal go-sdk function with one no-op tool
// (bench/noop-lambda), alternating in the same run. For each cold start it
// records the init duration the emulator reports (bootstrap started until it
// asks for its first event) and the first-response time (the first event,
// an MCP initialize, posted until its answer: process start, init and the
// invocation), then prints medians, the ratio and the binary sizes.
//
//	make bench-coldstart            # or: go run ./bench/cmd/coldstart -runs 15
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

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

const target = 1.5 // first response, ours / noop

type sample struct{ init, first, call time.Duration }

func main() {
	runs := flag.Int("runs", 9, "cold starts of each function")
	flag.StringVar(&credential, "credential", "session", "what the calls carry: session (a signed-in person's cookie) or token (an agent's API token, as Claude Code sends it)")
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

func run(runs int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
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

	bins := []struct{ name, pkg string }{{"ticket-ledger", "./functions/mcp"}, {"noop", "./bench/noop-lambda"}}
	sizes := map[string][2]int64{}
	for _, f := range bins {
		var sz [2]int64
		for i, arch := range []string{"", "arm64"} {
			goos := ""
			if arch != "" {
				goos = "linux"
			}
			out := filepath.Join(dir, f.name+"-"+arch)
			if err := lambdatest.Build(ctx, f.pkg, out, goos, arch); err != nil {
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
	// In Lambda every request carries a credential (LEDGER_AUTH=required):
	// the calls carry a signed-in person's session, so the first response
	// includes checking it (the session and its person, read from the
	// table once the store is open).
	secret := auth.NewSecret()
	now := time.Now()
	if err := st.CreatePerson(ctx, board.Person{Handle: "bench", Name: "bench", Role: board.RoleMember, CreatedAt: now}, nil); err != nil {
		return err
	}
	if err := st.CreateSession(ctx, board.Session{IDHash: auth.HashSecret(secret), Handle: "bench", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		return err
	}
	credentialHeader = [2]string{"cookie", auth.SessionCookie + "=" + secret}
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
		credentialHeader = [2]string{"authorization", "Bearer " + made.Secret}
	}
	ledgerEnv := []string{"LEDGER_STORE=dynamodb", "LEDGER_TABLE=" + table, "DYNAMODB_ENDPOINT=" + moto.URL, "LEDGER_AUTH=required", "LEDGER_CREATE_TABLE=0"}
	create := func(n int) []byte {
		return rpc("tools/call", map[string]any{"name": "create_ticket", "arguments": map[string]any{
			"request_id": fmt.Sprintf("cold-%d-%d", time.Now().UnixNano(), n), "workspace": "inbox", "title": "cold start"}})
	}
	// ticket-ledger twice: with LEDGER_BASE_URL (the BaseUrl parameter) the
	// handler is built during init, alongside the store; without it, on the
	// first event, from the API's domain name.
	fns := []struct {
		name, bin string
		env       []string
		call      func(n int) []byte
	}{
		{"ticket-ledger", "ticket-ledger", append(ledgerEnv, "LEDGER_BASE_URL=https://board.example"), create},
		{"  no BaseUrl", "ticket-ledger", ledgerEnv, create},
		{"noop", "noop", nil, func(n int) []byte {
			return rpc("tools/call", map[string]any{"name": "noop", "arguments": map[string]any{"request_id": fmt.Sprint(n)}})
		}},
	}

	samples := map[string][]sample{}
	for i := range runs {
		for k := range fns {
			f := fns[(i+k)%len(fns)] // rotate which goes first
			s, err := coldStart(ctx, rie, filepath.Join(dir, f.bin+"-"), f.env, f.call(i))
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			samples[f.name] = append(samples[f.name], s)
		}
	}

	fmt.Printf("Cold start under aws-lambda-rie (%s/%s, %d cold starts each, medians; min–max; calls carry a %s)\n\n", runtime.GOOS, runtime.GOARCH, runs, credential)
	fmt.Printf("%-14s %26s %26s %26s %13s %13s\n", "function", "init duration", "first response", "first tool call (warm)", "size (host)", "size (arm64)")
	med := map[string]sample{}
	for _, f := range fns {
		ss := samples[f.name]
		m := sample{
			init:  median(ss, func(s sample) time.Duration { return s.init }),
			first: median(ss, func(s sample) time.Duration { return s.first }),
			call:  median(ss, func(s sample) time.Duration { return s.call }),
		}
		med[f.name] = m
		fmt.Printf("%-14s %26s %26s %26s %10.1f MB %10.1f MB\n", f.name,
			span(ss, m.init, func(s sample) time.Duration { return s.init }),
			span(ss, m.first, func(s sample) time.Duration { return s.first }),
			span(ss, m.call, func(s sample) time.Duration { return s.call }),
			mb(sizes[f.bin][0]), mb(sizes[f.bin][1]))
	}
	base := med["noop"]
	fmt.Println()
	for _, f := range fns[:2] {
		ours := med[f.name]
		ratio := float64(ours.first) / float64(base.first)
		verdict := "within"
		if ratio > target {
			verdict = "OVER"
		}
		fmt.Printf("ratio %-14s / noop: init %.2f×, first response %.2f× (%s the %.1f× target)\n",
			strings.TrimSpace(f.name), float64(ours.init)/float64(base.init), ratio, verdict, target)
	}
	fmt.Printf("binary size ticket-ledger / noop: %.2f× (arm64)\n", float64(sizes["ticket-ledger"][1])/float64(sizes["noop"][1]))
	return nil
}

// credential is -credential; credentialHeader the header every call sends
// for it (the no-op function ignores it).
var (
	credential       string
	credentialHeader [2]string
)

// coldStart starts a fresh execution environment, sends it initialize (the
// cold start) and then one tool call (warm).
func coldStart(ctx context.Context, rie, bootstrap string, env []string, call []byte) (sample, error) {
	var s sample
	emu, err := lambdatest.StartEmulator(ctx, rie, bootstrap, env)
	if err != nil {
		return s, err
	}
	defer emu.Stop()
	headers := map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream", credentialHeader[0]: credentialHeader[1]}
	initialize := rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "coldstart", "version": "1"}})
	start := time.Now()
	resp, err := emu.Invoke(ctx, lambdatest.HTTPEvent("bench.execute-api.us-east-1.amazonaws.com", http.MethodPost, "/mcp", headers, initialize))
	s.first = time.Since(start)
	if err != nil {
		return s, err
	}
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("initialize: HTTP %d %s", resp.StatusCode, resp.Body)
	}
	var ok bool
	if s.init, ok = emu.InitDuration(); !ok {
		return s, fmt.Errorf("no init report in the emulator's log:\n%s", emu.Logs())
	}
	headers["mcp-protocol-version"] = "2025-11-25"
	start = time.Now()
	resp, err = emu.Invoke(ctx, lambdatest.HTTPEvent("bench.execute-api.us-east-1.amazonaws.com", http.MethodPost, "/mcp", headers, call))
	s.call = time.Since(start)
	if err != nil {
		return s, err
	}
	var msg struct {
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(resp.Body), &msg) != nil || msg.Error != nil || msg.Result.IsError {
		return s, fmt.Errorf("tool call: HTTP %d %s", resp.StatusCode, resp.Body)
	}
	return s, nil
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

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mb(n int64) float64 { return float64(n) / (1 << 20) }
