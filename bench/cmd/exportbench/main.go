// Command exportbench measures moving a board of 10 000 tickets (each with
// its creation's request record and event, every tenth with a note):
// tickets per second of `export` and `import-board` (internal/boardfile),
// both ways, median of rounds:
//
//   - SQLite → file → SQLite;
//   - SQLite → file → DynamoDB (moto) → file.
//
// moto is started with scripts/moto-stepfunctions.py (plain moto copies
// the whole table for every item of a transaction, and each imported
// ticket is one), unless -endpoint names a DynamoDB-compatible server.
// `make bench-export` runs it. The figures are in docs/benchmarks.md.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

var agent = board.WithPrincipal(context.Background(), board.Principal{Author: "ai:bench", OnBehalfOf: "human:ada", Source: board.SourceMCP})

// grow writes n tickets through the service, as agents would.
func grow(st board.Store, n int) error {
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://127.0.0.1"})
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		res, err := svc.CreateTicket(agent, board.CreateTicketInput{
			RequestID: fmt.Sprintf("c-%d", i),
			Workspace: "inbox",
			NewTicket: board.NewTicket{
				Title: fmt.Sprintf("Ticket %05d", i),
				Body:  "A ticket with a line of text, as most have.",
				Tags:  []string{"bench"},
			},
		})
		if err != nil {
			return err
		}
		if i%10 == 0 {
			if _, err := svc.AddNote(agent, board.AddNoteInput{RequestID: fmt.Sprintf("n-%d", i), ID: res.Ticket.ID, Body: "a note"}); err != nil {
				return err
			}
		}
	}
	return nil
}

type mover interface {
	boardfile.Source
	boardfile.Target
}

// timed runs export or import once and returns tickets per second.
func exportRate(st mover, n int) ([]byte, float64, error) {
	var buf bytes.Buffer
	start := time.Now()
	counts, err := boardfile.Export(context.Background(), st, &buf, boardfile.ExportOptions{Now: time.Now()})
	if err != nil {
		return nil, 0, err
	}
	if counts[boardfile.KindTicket] != n {
		return nil, 0, fmt.Errorf("exported %d tickets, want %d", counts[boardfile.KindTicket], n)
	}
	return buf.Bytes(), float64(n) / time.Since(start).Seconds(), nil
}

func loadRate(st mover, file []byte, n int) (float64, error) {
	start := time.Now()
	res, err := boardfile.Load(context.Background(), st, bytes.NewReader(file), boardfile.LoadOptions{Now: time.Now()})
	if err != nil {
		return 0, err
	}
	if res.Written[boardfile.KindTicket] != n {
		return 0, fmt.Errorf("imported %d tickets, want %d", res.Written[boardfile.KindTicket], n)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

func median(rates []float64) string {
	slices.Sort(rates)
	return fmt.Sprintf("median %.0f tickets/s (min %.0f, max %.0f, %d rounds)", rates[len(rates)/2], rates[0], rates[len(rates)-1], len(rates))
}

func main() {
	n := flag.Int("tickets", 10000, "tickets on the board")
	rounds := flag.Int("rounds", 3, "SQLite rounds (median)")
	dynRounds := flag.Int("dynamo-rounds", 3, "DynamoDB rounds (median)")
	endpoint := flag.String("endpoint", "", "DynamoDB-compatible endpoint (default: start moto)")
	sqliteOnly := flag.Bool("sqlite-only", false, "measure the embedded store only")
	flag.Parse()
	ctx := context.Background()

	dir, err := os.MkdirTemp("", "exportbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src, err := sqlite.OpenDir(ctx, filepath.Join(dir, "source"))
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	start := time.Now()
	if err := grow(src, *n); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "grew %d tickets in %s\n", *n, time.Since(start).Round(time.Millisecond))

	var file []byte
	var exports, imports []float64
	for r := range *rounds {
		f, rate, err := exportRate(src, *n)
		if err != nil {
			log.Fatal(err)
		}
		file, exports = f, append(exports, rate)
		dst, err := sqlite.OpenDir(ctx, filepath.Join(dir, fmt.Sprint("target-", r)))
		if err != nil {
			log.Fatal(err)
		}
		rate, err = loadRate(dst, file, *n)
		dst.Close()
		if err != nil {
			log.Fatal(err)
		}
		imports = append(imports, rate)
	}
	fmt.Printf("%d tickets, a file of %.1f MB\n", *n, float64(len(file))/1e6)
	fmt.Printf("export from SQLite: %s\n", median(exports))
	fmt.Printf("import-board into SQLite: %s\n", median(imports))
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
	var dynLoads, dynExports []float64
	for r := range *dynRounds {
		st, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: url, Table: fmt.Sprintf("exportbench-%d-%d", time.Now().UnixNano(), r), CreateTable: true, SerializeWrites: true}, slog.New(slog.DiscardHandler))
		if err != nil {
			log.Fatal(err)
		}
		rate, err := loadRate(st, file, *n)
		if err != nil {
			log.Fatal(err)
		}
		dynLoads = append(dynLoads, rate)
		_, rate, err = exportRate(st, *n)
		if err != nil {
			log.Fatal(err)
		}
		dynExports = append(dynExports, rate)
		fmt.Fprintf(os.Stderr, "moto round %d: import %.0f, export %.0f tickets/s\n", r+1, dynLoads[r], dynExports[r])
	}
	fmt.Printf("import-board into DynamoDB (moto): %s\n", median(dynLoads))
	fmt.Printf("export from DynamoDB (moto): %s\n", median(dynExports))
}
