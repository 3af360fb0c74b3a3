// Command importbench measures import_tickets of 10 000 rows as the task
// runners run it (the chunk worker, board.Service.RunImport), side by side
// on the embedded store and on moto's DynamoDB:
//
//   - SQLite: tickets per second (target: at least 5 000), median of rounds;
//   - DynamoDB (moto): requests per ticket, every request the client sends
//     counted after the SDK's retries (target: at most 0.05, i.e. at least
//     20 tickets per request), staging and the task's reads included.
//
// moto is started with scripts/moto-stepfunctions.py (its TransactWriteItems
// otherwise copies the whole table once per item and takes hours), unless
// -endpoint names a DynamoDB-compatible server. `make bench-import` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

type parked struct{}

func (parked) Reference(board.Task) string             { return "" }
func (parked) Start(context.Context, board.Task) error { return nil }
func (parked) Stop(context.Context, board.Task) error  { return nil }

var alice = board.WithPrincipal(context.Background(), board.Principal{Author: "ai:bench", Source: board.SourceMCP})

func input(id string, n int) board.ImportTicketsInput {
	in := board.ImportTicketsInput{RequestID: id, Workspace: "inbox"}
	for i := range n {
		in.Tickets = append(in.Tickets, board.ImportRow{NewTicket: board.NewTicket{
			Title: fmt.Sprintf("Imported ticket %05d", i),
			Body:  "A ticket from a spreadsheet export, with a line of text as most have.",
			Tags:  []string{"imported"},
		}})
	}
	return in
}

// run imports n rows and returns how long the chunk worker took.
func run(svc *board.Service, id string, n int) (time.Duration, error) {
	res, err := svc.ImportTickets(alice, input(id, n))
	if err != nil {
		return 0, err
	}
	start := time.Now()
	t, err := svc.RunImport(context.Background(), res.TaskID, 0)
	if err != nil {
		return 0, err
	}
	if t.Status != board.TaskCompleted || t.Imported != n {
		return 0, fmt.Errorf("import ended %s with %d of %d", t.Status, t.Imported, n)
	}
	return time.Since(start), nil
}

func main() {
	rows := flag.Int("rows", 10000, "rows per import")
	rounds := flag.Int("rounds", 5, "SQLite rounds (median)")
	endpoint := flag.String("endpoint", "", "DynamoDB-compatible endpoint (default: start moto)")
	sqliteOnly := flag.Bool("sqlite-only", false, "measure the embedded store only")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the SQLite rounds to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
	}
	ctx := context.Background()

	var rates []float64
	for r := range *rounds {
		dir, _ := os.MkdirTemp("", "importbench")
		st, err := sqlite.OpenDir(ctx, dir)
		if err != nil {
			log.Fatal(err)
		}
		svc, _ := board.NewService(board.Config{Store: st, Runner: parked{}, InlineImportRows: 1})
		d, err := run(svc, fmt.Sprintf("bench-%d", r), *rows)
		st.Close()
		os.RemoveAll(dir)
		if err != nil {
			log.Fatal(err)
		}
		rates = append(rates, float64(*rows)/d.Seconds())
	}
	slices.Sort(rates)
	fmt.Printf("SQLite (synchronous=FULL): %d rows, %d rounds: median %.0f tickets/s (min %.0f, max %.0f); target >= 5000\n",
		*rows, *rounds, rates[len(rates)/2], rates[0], rates[len(rates)-1])
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if *sqliteOnly {
		return
	}

	url := *endpoint
	if url == "" {
		// moto with its transaction snapshot fix (scripts/moto-stepfunctions.py).
		moto, err := lambdatest.StartMotoCommand(ctx, "python3", filepath.Join("scripts", "moto-stepfunctions.py"))
		if err != nil {
			log.Fatal(err)
		}
		defer moto.Stop()
		url = moto.URL
	}
	var counter dynamo.RequestCounter
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: url, Options: []func(*dynamodb.Options){counter.Register}})
	if err != nil {
		log.Fatal(err)
	}
	table := fmt.Sprintf("importbench-%d", time.Now().UnixNano())
	st, err := dynamo.Open(ctx, dynamo.Config{Client: client, Table: table, CreateTable: true, SerializeWrites: true})
	if err != nil {
		log.Fatal(err)
	}
	svc, _ := board.NewService(board.Config{Store: st, Runner: parked{}, InlineImportRows: 1})
	counter.Reset()
	res, err := svc.ImportTickets(alice, input("bench-dynamo", *rows))
	if err != nil {
		log.Fatal(err)
	}
	staged := counter.Total()
	start := time.Now()
	// As the worker runs it: invocations of 1000 rows each.
	for {
		t, err := svc.RunImport(ctx, res.TaskID, 1000)
		if err != nil {
			log.Fatal(err)
		}
		if t.Status != board.TaskWorking {
			if t.Imported != *rows {
				log.Fatalf("import ended %s with %d", t.Status, t.Imported)
			}
			break
		}
	}
	took := time.Since(start)
	total := counter.Total()
	fmt.Printf("DynamoDB (moto): %d rows: %d requests (%d to stage the import), %.4f requests per ticket (%.1f tickets per request); target <= 0.05\n",
		*rows, total, staged, float64(total)/float64(*rows), float64(*rows)/float64(total))
	fmt.Printf("  requests: %s; %v on moto (not a DynamoDB speed)\n", counter.Ops(), took.Round(time.Millisecond))
}
