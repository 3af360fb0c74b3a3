// Command scale grows a board to each size in -sizes and measures every
// read tool call at each size, through board.Service:
//
//   - on the embedded SQLite store, p50 and p99 latency over -calls calls;
//   - on DynamoDB (moto, or any endpoint named by DYNAMODB_ENDPOINT), the
//     requests and items read per call, counted by dynamo.RequestCounter.
//
// The targets (docs/benchmarks.md): every read at the largest size within
// 1.5x its p50 at the smallest; on DynamoDB, items read per call at most
// twice what the call returns plus a constant, and the summary in at most 4
// requests. `make bench-scale` runs it; figures are in docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var runID = strconv.FormatInt(time.Now().UnixNano(), 36)

func main() {
	sizes := flag.String("sizes", "1000,10000,100000", "board sizes (tickets), ascending")
	stores := flag.String("stores", "sqlite,dynamodb", "stores to measure: sqlite, dynamodb")
	n := flag.Int("calls", 120, "SQLite: calls per tool and size (p50/p99 over them)")
	dynCalls := flag.Int("dynamo-calls", 1, "DynamoDB: calls per tool and size (the counts are the median); counts do not vary, and one call at 100k takes moto a minute")
	endpoint := flag.String("endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "DynamoDB endpoint (moto); scripts/with-moto.sh sets DYNAMODB_ENDPOINT")
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
			if *endpoint == "" {
				err = errors.New("no DynamoDB endpoint: run under scripts/with-moto.sh or pass -endpoint")
				break
			}
			err = benchDynamo(ctx, ns, *dynCalls, *endpoint)
		default:
			err = fmt.Errorf("-stores: unknown store %q", s)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
}

func label(n int64) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprint(n)
	}
}
