// Command scale grows a board to each size in -sizes and measures every
// read tool call at each size, through board.Service:
//
//   - on the embedded SQLite store, p50 and p99 latency over -calls calls;
//   - on DynamoDB (moto started with scripts/moto-stepfunctions.py, or any
//     endpoint named by -endpoint or DYNAMODB_ENDPOINT), the requests and
//     items read per call, counted by dynamo.RequestCounter.
//
// The targets (docs/benchmarks.md): every read at the largest size within
// 1.5x its p50 at the smallest; on DynamoDB, items read per call at most
// twice what the call returns plus a constant, and the summary in at most 4
// requests. `make bench-scale` runs it; figures are in docs/benchmarks.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

var runID = strconv.FormatInt(time.Now().UnixNano(), 36)

func main() {
	sizes := flag.String("sizes", "1000,10000,100000", "board sizes (tickets), ascending")
	stores := flag.String("stores", "sqlite,dynamodb", "stores to measure: sqlite, dynamodb")
	n := flag.Int("calls", 120, "SQLite: calls per tool and size (p50/p99 over them)")
	dynCalls := flag.Int("dynamo-calls", 1, "DynamoDB: calls per tool and size (the counts are the median); counts do not vary, and one call at 100k takes moto a minute")
	endpoint := flag.String("endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "DynamoDB endpoint (default: start moto with its transaction snapshot fix, scripts/moto-stepfunctions.py)")
	flag.BoolVar(&reindex, "reindex", false, "DynamoDB: also run reindex-words over the whole board at each size, and report its time, requests and items")
	onlyFlag := flag.String("only", "", "measure only the calls whose names match this regular expression (e.g. '^search' at 100k on moto)")
	flag.Parse()
	if *onlyFlag != "" {
		re, err := regexp.Compile(*onlyFlag)
		if err != nil {
			log.Fatalf("-only: %v", err)
		}
		only = re
		if len(calls()) == 0 {
			log.Fatalf("-only %q matches no call", *onlyFlag)
		}
	}

	var ns []int64
	for _, f := range strings.Split(*sizes, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || v < 1000 || (len(ns) > 0 && v <= ns[len(ns)-1]) {
			log.Fatalf("-sizes: %q: want ascending sizes of at least 1000", *sizes)
		}
		ns = append(ns, v)
	}
	ctx := context.Background()
	for _, s := range strings.Split(*stores, ",") {
		var err error
		switch strings.TrimSpace(s) {
		case "sqlite":
			err = benchSQLite(ctx, ns, *n)
		case "dynamodb":
			err = onMoto(ctx, *endpoint, func(url string) error { return benchDynamo(ctx, ns, *dynCalls, url) })
		default:
			err = fmt.Errorf("-stores: unknown store %q", s)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
}

// onMoto runs fn against endpoint, or, when none is named, against a moto
// server of its own that it stops afterwards: moto with its transaction
// snapshot fix (scripts/moto-stepfunctions.py), since the board grows
// through transactions and plain moto copies the whole table once per item
// of each one.
func onMoto(ctx context.Context, endpoint string, fn func(url string) error) error {
	if endpoint != "" {
		return fn(endpoint)
	}
	moto, err := lambdatest.StartMotoCommand(ctx, "python3", filepath.Join("scripts", "moto-stepfunctions.py"))
	if err != nil {
		return fmt.Errorf("starting moto (run from the repository's root, or pass -endpoint): %w", err)
	}
	defer moto.Stop()
	return fn(moto.URL)
}

func label(n int64) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprint(n)
	}
}
