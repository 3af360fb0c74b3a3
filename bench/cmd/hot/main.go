// Command hot measures one busy workspace on DynamoDB: K store instances
// (each its own client, retry quota and caches, as Lambda instances are),
// each making one call at a time, mix creates, moves, notes and updates into
// one workspace under a model of DynamoDB's transaction conflicts
// (dynamotest.Injector: each transaction holds its items for -hold, in a
// lock table every instance shares). For each K it prints the calls
// answered per second, the calls whose first answer was an error and how
// many of those were internal errors, p50/p99 latency, the conflicts by
// item kind, the writes per second of the workspace's counter item (and
// its writes against the creates: the target is at most one per 10
// creates), those of the
// workspaces' partition (the count shards live there) and the busiest
// partition key of the table or an index.
//
//	go run ./bench/cmd/hot [-instances 1,4,16,32] [-calls 20] [-warmup 4] [-duration 0] [-hold 10ms] [-stores minidyn,moto]
//
// Each instance first makes -warmup calls that are not measured, as a
// Lambda instance that has served a few calls has: it holds its first
// block of numbers, so the counter's writes per create are the steady
// state's (one lease per block) rather than every instance's first lease.
//
// Both emulators copy the whole table on every transaction, so calls per
// second measure the emulator; judge by the counts. moto needs an endpoint
// (scripts/with-moto.sh sets DYNAMODB_ENDPOINT); without one its rows are
// skipped with the reason.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamotest"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hot:", err)
		os.Exit(1)
	}
}

type options struct {
	calls, warmup int
	duration      time.Duration
	hold          time.Duration
}

// seedTickets is how many tickets the moves, notes and updates pick from:
// few, so that calls meet on them.
const seedTickets = 8

func run() error {
	instancesFlag := flag.String("instances", "1,4,16,32", "comma-separated numbers of store instances")
	calls := flag.Int("calls", 20, "calls per instance (ignored when -duration is set)")
	warmup := flag.Int("warmup", 4, "calls per instance before measuring (one of each kind: every instance holds its first block of numbers)")
	duration := flag.Duration("duration", 0, "run each K for this long instead of -calls calls per instance (e.g. 30s)")
	hold := flag.Duration("hold", dynamotest.DefaultHold, "how long a transaction holds its items")
	storesFlag := flag.String("stores", "minidyn,moto", "comma-separated: minidyn, moto")
	endpoint := flag.String("endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "moto's endpoint; scripts/with-moto.sh sets DYNAMODB_ENDPOINT")
	flag.Parse()
	var ks []int
	for _, f := range strings.Split(*instancesFlag, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return fmt.Errorf("-instances: %q is not a positive number", f)
		}
		ks = append(ks, k)
	}
	opt := options{calls: *calls, warmup: *warmup, duration: *duration, hold: *hold}
	fmt.Printf("one workspace, K instances each making one call at a time (create, move, note, update in turn), hold %v, ", opt.hold)
	if opt.duration > 0 {
		fmt.Printf("%v per K\n\n", opt.duration)
	} else {
		fmt.Printf("%d calls per instance\n\n", opt.calls)
	}
	if opt.warmup > 0 {
		fmt.Printf("each instance warmed up with %d calls first, not measured\n\n", opt.warmup)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\tK\tcalls\tcalls/s\tfailed first\tinternal\tp50\tp99\tconflicts by kind\tcounter writes/s (peak)\tcounter writes / creates\tWS partition writes/s (peak)\tbusiest key (peak writes/s)\t")
	for _, name := range strings.Split(*storesFlag, ",") {
		for _, k := range ks {
			var url string
			switch name {
			case "minidyn":
				srv := httptest.NewServer(testbackends.WithCRC32(miniserver.NewServer()))
				defer srv.Close()
				url = srv.URL
			case "moto":
				if *endpoint == "" {
					fmt.Fprintf(tw, "moto\t%d\tskipped: no endpoint (run under scripts/with-moto.sh or pass -endpoint)\t\t\t\t\t\t\t\t\t\t\t\n", k)
					continue
				}
				url = *endpoint
			default:
				return fmt.Errorf("-stores: unknown store %q (want minidyn or moto)", name)
			}
			r, err := runOne(name, url, k, opt)
			if err != nil {
				return fmt.Errorf("%s K=%d: %w", name, k, err)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%d (%.1f%%)\t%d\t%v\t%v\t%s\t%.1f (%d)\t%d / %d\t%.1f (%d)\t%s (%d)\t\n", name, k, r.calls, r.perSecond,
				r.failed, 100*float64(r.failed)/float64(max(r.calls, 1)), r.internal, r.p50, r.p99, r.conflicts,
				r.counterPerSecond, r.counterPeak, r.counter, r.creates, r.wsPerSecond, r.wsPeak, r.busiest, r.busiestPeak)
			fmt.Fprintf(os.Stderr, "%s K=%d done\n", name, k)
		}
	}
	return tw.Flush()
}

type result struct {
	calls, failed, internal int
	perSecond               float64
	p50, p99                time.Duration
	conflicts               string
	counterPerSecond        float64
	counterPeak             int
	counter, creates        int
	wsPerSecond             float64
	wsPeak                  int
	busiest                 string
	busiestPeak             int
}

// runOne runs K instances against a fresh table at url.
func runOne(name, url string, k int, opt options) (result, error) {
	ctx := context.Background()
	in := &dynamotest.Injector{Hold: opt.hold, Serialize: name == "moto"}
	table := fmt.Sprintf("ledger-hot-%d-%d", k, time.Now().UnixNano())
	open := func(create bool) (*board.Service, error) {
		client := dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(url),
			Credentials:  credentials.NewStaticCredentialsProvider("bench", "bench", ""),
			Retryer:      dynamo.NewRetryer(), // the production retryer, retry quota included
			HTTPClient:   in.HTTPClient(),
		})
		st, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: create})
		if err != nil {
			return nil, err
		}
		// Internal errors' causes go to stderr: what failed a call shows.
		return board.NewService(board.Config{Store: st, BaseURL: "https://board.test",
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	}
	svcs := make([]*board.Service, k)
	for i := range svcs {
		svc, err := open(i == 0)
		if err != nil {
			return result{}, err
		}
		svcs[i] = svc
	}
	ai := board.WithPrincipal(ctx, board.Principal{Author: "ai:bench", Source: board.SourceMCP})
	for i := range seedTickets {
		if _, err := svcs[0].CreateTicket(ai, board.CreateTicketInput{RequestID: fmt.Sprintf("seed-%d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: "seed"}}); err != nil {
			return result{}, err
		}
	}
	// Each instance warms up first, as a Lambda instance that has served a
	// few calls has: it holds its first block of numbers and its count
	// shard slot, so what is measured is the steady state (a block leased
	// once in at least minBlock creates), not every instance's first lease.
	var warm measured
	calls(svcs, k, "w", opt.warmup, 0, ai, &warm)
	if warm.failed > 0 {
		fmt.Fprintf(os.Stderr, "%s K=%d: %d warm-up calls failed (%d internal), the first: %v\n", name, k, warm.failed, warm.internal, warm.firstErr)
	}
	in.Reset()

	var m measured
	start := time.Now()
	calls(svcs, k, "c", opt.calls, opt.duration, ai, &m)
	elapsed := time.Since(start)
	if m.firstErr != nil {
		fmt.Fprintf(os.Stderr, "%s K=%d: first failure: %v\n", name, k, m.firstErr)
	}
	st := in.Stats()
	lat := m.lat
	slices.Sort(lat)
	r := result{calls: len(lat), failed: m.failed, internal: m.internal,
		perSecond: float64(len(lat)-m.failed) / elapsed.Seconds(),
		p50:       pct(lat, 50), p99: pct(lat, 99), conflicts: kinds(st.Conflicts),
		wsPeak: in.PeakWrites("", "WS"), busiest: hotName(st.Busiest), busiestPeak: st.Busiest.PerSecond}
	ws := in.Writes("", "WS")
	r.wsPerSecond = float64(ws) / elapsed.Seconds()
	counter := in.Writes("", counterPK)
	r.counter, r.creates = counter, m.creates
	r.counterPerSecond, r.counterPeak = float64(counter)/elapsed.Seconds(), in.PeakWrites("", counterPK)
	return r, nil
}

// measured is what the calls of a measured phase came to.
type measured struct {
	mu                        sync.Mutex
	lat                       []time.Duration
	failed, internal, creates int
	firstErr                  error
}

// calls has every instance make n calls one at a time (or, with
// duration, as many as fit in it), cycling through create, move, note and
// update, and records them in m.
func calls(svcs []*board.Service, k int, phase string, n int, duration time.Duration, ai context.Context, m *measured) {
	deadline := time.Now().Add(duration)
	statuses := []board.Status{board.StatusDoing, board.StatusWaitingHuman, board.StatusWaitingAI, board.StatusCandidate}
	var wg sync.WaitGroup
	for i, svc := range svcs {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(i), uint64(len(phase))))
			for c := 0; ; c++ {
				if duration > 0 && time.Now().After(deadline) || duration <= 0 && c >= n {
					return
				}
				rid := fmt.Sprintf("k%d-i%d-%s%d", k, i, phase, c)
				id := fmt.Sprintf("inbox-%d", 1+rnd.IntN(seedTickets))
				t0 := time.Now()
				var err error
				switch (i + c) % 4 {
				case 0:
					_, err = svc.CreateTicket(ai, board.CreateTicketInput{RequestID: rid, Workspace: "inbox", NewTicket: board.NewTicket{Title: "busy " + rid}})
				case 1:
					_, err = svc.MoveTicket(ai, board.MoveTicketInput{RequestID: rid, ID: id, Status: statuses[rnd.IntN(len(statuses))]})
				case 2:
					_, err = svc.AddNote(ai, board.AddNoteInput{RequestID: rid, ID: id, Body: "note " + rid})
				case 3:
					title := "title " + rid
					_, err = svc.UpdateTicket(ai, board.UpdateTicketInput{RequestID: rid, ID: id, Title: &title})
				}
				d := time.Since(t0)
				m.mu.Lock()
				m.lat = append(m.lat, d)
				if (i+c)%4 == 0 && err == nil {
					m.creates++
				}
				if err != nil {
					m.failed++
					if board.ErrorCode(err) == board.CodeInternal {
						m.internal++
					}
					if m.firstErr == nil {
						m.firstErr = err
					}
				}
				m.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)].Round(time.Millisecond)
}

// counterPK is the partition key of the workspace's ticket counter item.
const counterPK = "WN#inbox"

// kindNames names the item kinds of the store's workspace-wide items.
var kindNames = map[string]string{"WS": "WS (workspace, count shards)", "WN#": "WN# (counter)"}

// kinds prints conflicts by item kind, most first ("T# 4, R# 1").
func kinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range m {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].k < all[j].k })
	parts := make([]string, len(all))
	for i, e := range all {
		name := e.k
		if n, ok := kindNames[e.k]; ok {
			name = n
		}
		parts[i] = name + " " + strconv.Itoa(e.n)
	}
	return strings.Join(parts, ", ")
}

func hotName(h dynamotest.Hot) string {
	if h.Index == "" {
		return "table " + h.Key
	}
	return h.Index + " " + h.Key
}
