// Command claims measures a workspace used as a work queue: A agents, each
// calling claim_next in a loop on a workspace of N ready tickets until none
// is left, releasing each ticket as done in the same write as its release.
// It checks that every ticket was claimed exactly once (none twice, none
// left) and prints claims per second and the p50 and p99 latency of
// claim_next. Agents are spread over S service instances (each its own
// store handle, as Lambda instances are), so they race through the stores'
// version checks and not only through one process's per-ticket locks.
//
//	go run ./bench/cmd/claims [-agents 32] [-tickets 2000] [-instances 4] [-stores sqlite,minidyn,conflicts,moto]
//
// conflicts is minidyn under the model of DynamoDB's transaction conflicts
// (internal/dynamotest: a transaction holds its items for -hold). moto needs
// an endpoint (scripts/with-moto.sh sets DYNAMODB_ENDPOINT); without one its
// row is skipped with the reason. Both emulators copy the table on every
// transaction: their rates measure the emulator.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamotest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "claims:", err)
		os.Exit(1)
	}
}

type options struct {
	agents, tickets, instances int
	hold                       time.Duration
}

func run() error {
	agents := flag.Int("agents", 32, "agents calling claim_next at once")
	tickets := flag.Int("tickets", 2000, "ready tickets in the workspace")
	instances := flag.Int("instances", 4, "service instances the agents are spread over")
	hold := flag.Duration("hold", dynamotest.DefaultHold, "conflicts: how long a transaction holds its items")
	storesFlag := flag.String("stores", "sqlite,minidyn,conflicts,moto", "comma-separated: sqlite, minidyn, conflicts, moto")
	endpoint := flag.String("endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "moto's endpoint; scripts/with-moto.sh sets DYNAMODB_ENDPOINT")
	flag.Parse()
	if *agents < 1 || *tickets < 1 || *instances < 1 {
		return fmt.Errorf("-agents, -tickets and -instances must be positive")
	}
	opt := options{agents: *agents, tickets: *tickets, instances: *instances, hold: *hold}
	fmt.Printf("%d agents over %d instances claim %d ready tickets with claim_next, each released as done\n\n", opt.agents, opt.instances, opt.tickets)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\ttickets\tclaimed once\ttwice\tleft\tfailed calls (retried)\tclaims/s\tclaim p50\tclaim p99\t")
	for _, name := range strings.Split(*storesFlag, ",") {
		open, cleanup, err := opener(name, *endpoint, opt)
		if err != nil {
			return err
		}
		if open == nil {
			fmt.Fprintf(tw, "%s\tskipped: no endpoint (run under scripts/with-moto.sh or pass -endpoint)\t\t\t\t\t\t\t\t\n", name)
			continue
		}
		r, err := runOne(open, opt)
		cleanup()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.1f\t%v\t%v\t\n", name, opt.tickets, r.once, r.twice, r.left, r.failed, r.perSecond, r.p50, r.p99)
		fmt.Fprintf(os.Stderr, "%s done\n", name)
		if r.twice > 0 || r.left > 0 {
			tw.Flush()
			return fmt.Errorf("%s: %d tickets claimed twice, %d left unclaimed", name, r.twice, r.left)
		}
	}
	return tw.Flush()
}

// opener returns how to open the i-th store instance of a fresh board
// (the first creates it), or nil when the store cannot run here.
func opener(name, endpoint string, opt options) (func(i int) (board.Store, error), func(), error) {
	ctx := context.Background()
	switch name {
	case "sqlite":
		dir, err := os.MkdirTemp("", "bench-claims")
		if err != nil {
			return nil, nil, err
		}
		path := filepath.Join(dir, "ledger.db")
		var opened []*sqlite.Store
		return func(int) (board.Store, error) {
				s, err := sqlite.Open(ctx, path)
				if err == nil {
					opened = append(opened, s)
				}
				return s, err
			}, func() {
				for _, s := range opened {
					s.Close()
				}
				os.RemoveAll(dir)
			}, nil
	case "minidyn", "conflicts", "moto":
		url := endpoint
		cleanup := func() {}
		if name != "moto" {
			srv := httptest.NewServer(testbackends.WithCRC32(miniserver.NewServer()))
			url, cleanup = srv.URL, srv.Close
		} else if url == "" {
			return nil, func() {}, nil
		}
		var httpClient *http.Client
		if name == "conflicts" {
			httpClient = (&dynamotest.Injector{Hold: opt.hold}).HTTPClient()
		}
		table := fmt.Sprintf("ledger-claims-%d", time.Now().UnixNano())
		return func(i int) (board.Store, error) {
			o := dynamodb.Options{
				Region:       "us-east-1",
				BaseEndpoint: aws.String(url),
				Credentials:  credentials.NewStaticCredentialsProvider("bench", "bench", ""),
				Retryer:      dynamo.NewRetryer(),
			}
			if httpClient != nil { // a nil *http.Client in the interface would be used
				o.HTTPClient = httpClient
			}
			client := dynamodb.New(o)
			return dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: i == 0, SerializeWrites: name == "moto"})
		}, cleanup, nil
	}
	return nil, nil, fmt.Errorf("-stores: unknown store %q (want sqlite, minidyn, conflicts or moto)", name)
}

type result struct {
	once, twice, left, failed int
	perSecond                 float64
	p50, p99                  time.Duration
}

func runOne(open func(i int) (board.Store, error), opt options) (result, error) {
	ctx := context.Background()
	svcs := make([]*board.Service, opt.instances)
	for i := range svcs {
		st, err := open(i)
		if err != nil {
			return result{}, err
		}
		if svcs[i], err = board.NewService(board.Config{Store: st, BaseURL: "https://board.test", Logger: slog.New(slog.DiscardHandler)}); err != nil {
			return result{}, err
		}
	}
	person := board.WithPrincipal(ctx, board.Principal{Author: "human:bench", Source: board.SourceWeb})
	for start := 0; start < opt.tickets; start += board.MaxImportRows {
		n := min(board.MaxImportRows, opt.tickets-start)
		rows := make([]board.ImportRow, n)
		priorities := []board.Priority{board.PriorityLow, board.PriorityNormal, board.PriorityHigh, board.PriorityUrgent}
		for i := range rows {
			rows[i] = board.ImportRow{NewTicket: board.NewTicket{Title: fmt.Sprint("work ", start+i), Priority: priorities[(start+i)%len(priorities)]}}
		}
		res, err := svcs[0].ImportTickets(person, board.ImportTicketsInput{RequestID: fmt.Sprint("seed-", start), Workspace: "inbox", Tickets: rows})
		if err != nil {
			return result{}, err
		}
		if res.Status != board.TaskCompleted {
			return result{}, fmt.Errorf("seeding ended %s: %s", res.Status, res.StatusMessage)
		}
	}

	var mu sync.Mutex
	claimed := map[string]int{}
	var lat []time.Duration
	var failed int
	var firstErr error
	start := time.Now()
	var wg sync.WaitGroup
	for a := range opt.agents {
		svc := svcs[a%len(svcs)]
		agent := board.WithPrincipal(ctx, board.Principal{Author: fmt.Sprintf("ai:agent%d", a), Source: board.SourceMCP})
		wg.Go(func() {
			for c := 0; ; c++ {
				// As an agent does: a failed call is retried with its
				// request_id, so a claim whose answer was lost comes back.
				t0 := time.Now()
				var res board.ClaimResult
				err := retried(func() (err error) {
					res, err = svc.ClaimNext(agent, board.ClaimNextInput{RequestID: fmt.Sprintf("a%d-%d", a, c), Workspace: "inbox"})
					return err
				})
				d := time.Since(t0)
				if err == nil && res.Ticket != nil {
					err = retried(func() error {
						_, err := svc.ReleaseTicket(agent, board.ReleaseTicketInput{RequestID: fmt.Sprintf("r%d-%d", a, c), ID: res.Ticket.ID,
							Status: board.StatusDone, ClaimToken: res.Claim.Token})
						return err
					})
				}
				mu.Lock()
				if err != nil {
					failed++
					if firstErr == nil {
						firstErr = err
					}
				} else if res.Ticket != nil {
					claimed[res.Ticket.ID]++
					lat = append(lat, d)
				}
				giveUp := failed > opt.tickets // something is wrong: stop rather than spin
				mu.Unlock()
				if err == nil && res.Ticket == nil || giveUp {
					return // nothing left
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		fmt.Fprintf(os.Stderr, "first failure: %v\n", firstErr)
	}
	r := result{failed: int(failedCalls.Swap(0)), perSecond: float64(len(lat)) / elapsed.Seconds()}
	for _, n := range claimed {
		if n == 1 {
			r.once++
		} else {
			r.twice++
		}
	}
	r.left = opt.tickets - len(claimed)
	slices.Sort(lat)
	r.p50, r.p99 = pct(lat, 50), pct(lat, 99)
	return r, nil
}

// retried calls fn until it succeeds, at most 5 times, counting the
// failures it saw (failedCalls).
func retried(fn func() error) error {
	var err error
	for range 5 {
		if err = fn(); err == nil {
			return nil
		}
		failedCalls.Add(1)
	}
	return err
}

// failedCalls counts the calls that failed, retried or not.
var failedCalls atomic.Int64

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)].Round(time.Millisecond)
}
