package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

var principal = board.Principal{Author: "ai:bench", Source: board.SourceMCP}

// growers is how many callers grow the SQLite board at once: the store
// group-commits concurrent writes, so this is much faster than one.
const growers = 32

// benchSQLite grows one board through every size, keeping a copy of the
// file at each, then opens the copies side by side and measures each call
// on all of them in turn (size 1, size 2, size 3, size 1, ...): a noisy
// machine slows every size alike, so their ratios hold.
func benchSQLite(ctx context.Context, sizes []int64, perCall int) error {
	dir, err := os.MkdirTemp("", "ledger-bench-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx = board.WithPrincipal(ctx, principal)
	growing := filepath.Join(dir, "growing")
	var grown int64
	var copies []string
	for _, size := range sizes {
		store, err := sqlite.OpenDir(ctx, growing)
		if err != nil {
			return err
		}
		svc, err := newBenchService(store)
		if err != nil {
			return err
		}
		start := time.Now()
		if err := growSQLite(ctx, svc, grown+1, size); err != nil {
			return err
		}
		grown = size
		if err := store.Close(); err != nil { // checkpoints the WAL into the file
			return err
		}
		copyDir := filepath.Join(dir, label(size))
		if err := copyFile(filepath.Join(growing, sqlite.FileName), filepath.Join(copyDir, sqlite.FileName)); err != nil {
			return err
		}
		copies = append(copies, copyDir)
		info, _ := os.Stat(filepath.Join(copyDir, sqlite.FileName))
		fmt.Fprintf(os.Stderr, "sqlite: grew to %d tickets in %s (file %d MB)\n", size, time.Since(start).Round(time.Second), info.Size()>>20)
	}
	svcs := make([]*board.Service, len(copies))
	for i, d := range copies {
		store, err := sqlite.OpenDir(ctx, d)
		if err != nil {
			return err
		}
		defer store.Close()
		if svcs[i], err = newBenchService(store); err != nil {
			return err
		}
	}
	rows := map[string][]stats{}
	for _, c := range calls() {
		st, err := timeSideBySide(ctx, svcs, c, perCall)
		if err != nil {
			return fmt.Errorf("sqlite %s: %w", c.name, err)
		}
		rows[c.name] = st
	}
	printSQLite(sizes, rows)
	return nil
}

func newBenchService(store board.Store) (*board.Service, error) {
	return board.NewService(board.Config{Store: store, BaseURL: "http://127.0.0.1", Logger: slog.New(slog.DiscardHandler)})
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o750); err != nil {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// growSQLite creates tickets from..to through the service, as callers do,
// and moves the ones spec says are not candidates.
func growSQLite(ctx context.Context, svc *board.Service, from, to int64) error {
	today := time.Now().UTC()
	var next atomic.Int64
	next.Store(from - 1)
	var wg sync.WaitGroup
	errs := make([]error, growers)
	for g := range growers {
		wg.Go(func() {
			for {
				n := next.Add(1)
				if n > to || errs[g] != nil {
					return
				}
				errs[g] = createSpec(ctx, svc, n, spec(n, today))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if from <= busyTicket && busyTicket <= to {
		for i := range busyNotes {
			if _, err := svc.AddNote(ctx, board.AddNoteInput{RequestID: fmt.Sprintf("grow-note-%s-%d", runID, i),
				ID: fmt.Sprintf("%s-%d", workspace, busyTicket), Body: fmt.Sprintf("Note %d: %s", i, lorem)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// createSpec creates ticket n. Tickets are numbered in the order their
// creates commit, so with concurrent growers number n may hold another
// spec than spec(n); which of them is which does not matter to the reads,
// only how many of each kind there are and that the rare ones are old.
func createSpec(ctx context.Context, svc *board.Service, n int64, s ticketSpec) error {
	res, err := svc.CreateTicket(ctx, board.CreateTicketInput{
		RequestID: fmt.Sprintf("grow-%s-%d", runID, n),
		Workspace: workspace,
		NewTicket: board.NewTicket{
			Title: s.title,
			Body:  s.body,
			Tags:  s.tags,
			Owner: s.owner,
			Due:   s.due,
		},
	})
	if err != nil {
		return err
	}
	if s.status != board.StatusCandidate {
		_, err = svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("grow-move-%s-%d", runID, n),
			ID: res.Ticket.ID, Status: s.status})
	}
	return err
}

// stats are one call's latencies at one size.
type stats struct {
	p50, p99 time.Duration
	returned int
	wrong    string
}

// timeSideBySide makes n measured calls on every board, in turn, after
// three unmeasured ones each (warm caches), and returns each board's stats.
func timeSideBySide(ctx context.Context, svcs []*board.Service, c call, n int) ([]stats, error) {
	out := make([]stats, len(svcs))
	lat := make([][]time.Duration, len(svcs))
	for i := range n + 3 {
		for k, svc := range svcs {
			t0 := time.Now()
			got, err := c.fn(ctx, svc, i)
			d := time.Since(t0)
			if errors.Is(err, errWrong) {
				out[k].wrong, err = err.Error(), nil
			}
			if err != nil {
				return nil, err
			}
			out[k].returned = got
			if i >= 3 {
				lat[k] = append(lat[k], d)
			}
		}
	}
	for k := range out {
		slices.Sort(lat[k])
		out[k].p50, out[k].p99 = percentile(lat[k], 50), percentile(lat[k], 99)
	}
	return out, nil
}

// percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func printSQLite(sizes []int64, rows map[string][]stats) {
	fmt.Printf("\n### SQLite: p50 / p99 per call (through board.Service)\n\n| call |")
	for _, s := range sizes {
		fmt.Printf(" %s |", label(s))
	}
	fmt.Printf(" p50 %s / %s | target ≤ 1.5 |\n|---|", label(sizes[len(sizes)-1]), label(sizes[0]))
	for range sizes {
		fmt.Print("---|")
	}
	fmt.Println("---|---|")
	for _, c := range calls() {
		r := rows[c.name]
		fmt.Printf("| %s |", c.name)
		for _, st := range r {
			fmt.Printf(" %s / %s |", ms(st.p50), ms(st.p99))
		}
		ratio := float64(r[len(r)-1].p50) / float64(r[0].p50)
		verdict := "met"
		switch {
		case !c.read:
			verdict = "(write)"
		case ratio > 1.5:
			verdict = "**missed**"
		}
		fmt.Printf(" %.2f | %s |\n", ratio, verdict)
	}
	for _, c := range calls() {
		for i, st := range rows[c.name] {
			if st.wrong != "" {
				fmt.Printf("\n- %s at %s: %s", c.name, label(sizes[i]), st.wrong)
			}
		}
	}
	fmt.Println()
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
