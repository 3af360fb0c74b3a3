// Command webhooks measures webhook delivery on the local server's store
// (SQLite): W writers make N events (each ticket created, then moved four
// times) in a workspace with three subscriptions, each posting to a
// loopback receiver of this command; one receiver fails a share of its
// deliveries (-fail). The sender runs as the server runs it, with a short
// retry schedule (-retry) so that the run takes minutes. It checks, per
// subscription, that every event was delivered at least once, that a
// duplicate came only after a failure, and that each ticket's events
// arrived in order; it prints the p50, p99 and largest delay from an
// event's write to its first delivery, and the rates.
//
//	go run ./bench/cmd/webhooks [-events 10000] [-writers 4] [-fail 0.2] [-retry 20ms] [-poll 20ms]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}

// movesPerTicket: each ticket makes one created event and this many moves.
var moves = []board.Status{board.StatusDoing, board.StatusWaitingHuman, board.StatusWaitingAI, board.StatusDone}

func run() error {
	events := flag.Int("events", 10000, "events to write (a multiple of 5: each ticket is created and moved 4 times)")
	writers := flag.Int("writers", 4, "writers at once, each on its own tickets")
	fail := flag.Float64("fail", 0.2, "the share of deliveries the third receiver fails (HTTP 500)")
	retry := flag.String("retry", "20ms", "the retry schedule after failures in a row (LEDGER_WEBHOOK_RETRY's form)")
	poll := flag.Duration("poll", 20*time.Millisecond, "how often the sender looks for new events")
	timeout := flag.Duration("timeout", 15*time.Minute, "give up waiting for deliveries after this long")
	flag.Parse()
	schedule, err := webhook.ParseSchedule(*retry)
	if err != nil {
		return err
	}
	per := 1 + len(moves)
	tickets := *events / per
	if tickets == 0 || *events%per != 0 {
		return fmt.Errorf("-events %d is not a positive multiple of %d", *events, per)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "bench-webhooks")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := board.NewService(board.Config{Store: st, BaseURL: "http://bench.test"})
	if err != nil {
		return err
	}
	hooks := webhook.New(webhook.Config{Store: st, Secrets: st, Workspaces: st, BaseURL: "http://bench.test",
		AllowPrivate: true, Schedule: schedule, GiveUp: 24 * time.Hour, Poll: *poll})
	admin := board.WithPrincipal(ctx, board.Principal{Author: "human:bench", Role: board.RoleAdmin, Source: board.SourceREST})

	receivers := []*receiver{{name: "ok-1"}, {name: "ok-2"}, {name: "failing", fail: *fail}}
	var start string
	for i, r := range receivers {
		srv := httptest.NewServer(r)
		defer srv.Close()
		c, err := hooks.Create(admin, webhook.CreateInput{RequestID: "bench-hook-" + strconv.Itoa(i), Workspace: "inbox", URL: srv.URL + "/hook"})
		if err != nil {
			return err
		}
		r.secret = c.Secret
		start = c.Subscription.Progress.Cursor
	}
	var sender sync.WaitGroup
	sender.Go(func() { hooks.Run(ctx) })

	fmt.Printf("webhooks: %d events (%d tickets × %d) by %d writers; 3 subscriptions, %s fails %.0f%%; retry %s, poll %s\n",
		*events, tickets, per, *writers, receivers[2].name, *fail*100, *retry, *poll)
	began := time.Now()
	if err := write(admin, svc, tickets, *writers); err != nil {
		return err
	}
	wrote := time.Since(began)

	written, err := feed(ctx, st, start)
	if err != nil {
		return err
	}
	if len(written) != *events {
		return fmt.Errorf("the feed holds %d events after the writes, want %d", len(written), *events)
	}
	deadline := time.Now().Add(*timeout)
	for !allDelivered(receivers, written) {
		if time.Now().After(deadline) {
			return fmt.Errorf("not every event was delivered within %s", *timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	delivered := time.Since(began)
	cancel()
	sender.Wait()

	fmt.Printf("writes: %s (%.0f events/s); every delivery done after %s (%.0f deliveries/s)\n\n",
		wrote.Round(time.Millisecond), float64(*events)/wrote.Seconds(), delivered.Round(time.Millisecond),
		float64(3**events)/delivered.Seconds())
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "receiver\tdelivered\tfailed\tduplicates\torder\tp50 delay\tp99 delay\tmax delay\t")
	var problems []error
	for _, r := range receivers {
		v := r.verify(written)
		problems = append(problems, v.problems...)
		order := "kept"
		if v.outOfOrder > 0 {
			order = fmt.Sprintf("%d out", v.outOfOrder)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.name, v.distinct, v.failed, v.duplicates, order,
			pct(v.delays, 50), pct(v.delays, 99), pct(v.delays, 100))
	}
	tw.Flush()
	if err := errors.Join(problems...); err != nil {
		return err
	}
	fmt.Println("\nchecked: every event delivered at least once per subscription, signatures valid, duplicates only after a failure, each ticket's events in order")
	return nil
}

// write makes the tickets and their moves, each writer on its own tickets.
func write(ctx context.Context, svc *board.Service, tickets, writers int) error {
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < tickets; i += writers {
				res, err := svc.CreateTicket(ctx, board.CreateTicketInput{RequestID: fmt.Sprintf("c-%d", i), Workspace: "inbox",
					NewTicket: board.NewTicket{Title: fmt.Sprintf("Bench ticket %d", i)}})
				if err != nil {
					errs <- err
					return
				}
				for j, to := range moves {
					if _, err := svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("m-%d-%d", i, j), ID: res.Ticket.ID, Status: to, Reason: "bench"}); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// written is an event of the feed: its place, its ticket.
type written struct {
	index  int
	ticket string
}

// feed reads the workspace's events after cursor, in feed order.
func feed(ctx context.Context, st *sqlite.Store, cursor string) (map[string]written, error) {
	out := map[string]written{}
	for {
		evs, err := st.EventsAfter(ctx, "inbox", cursor, 1000)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			out[ev.Event.ID] = written{index: len(out), ticket: ev.Event.TicketID}
			cursor = ev.Cursor
		}
		if len(evs) < 1000 {
			return out, nil
		}
	}
}

// receiver is a loopback endpoint that checks each delivery's signature
// and records what it took and what it failed.
type receiver struct {
	name   string
	fail   float64
	secret string

	mu       sync.Mutex
	took     []receipt
	failed   map[string]int
	badSigns int
}

type receipt struct {
	id, ticket string
	delay      time.Duration
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	at := time.Now()
	var p webhook.Payload
	_ = json.Unmarshal(body, &p)
	id := req.Header.Get("webhook-id")
	ts, _ := strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
	want, _ := webhook.Sign(r.secret, id, ts, body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Header.Get("webhook-signature") != want || p.ID != id {
		r.badSigns++
	}
	if r.fail > 0 && rand.Float64() < r.fail {
		if r.failed == nil {
			r.failed = map[string]int{}
		}
		r.failed[id]++
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	ticket := ""
	if p.Data.Ticket != nil {
		ticket = p.Data.Ticket.ID
	}
	r.took = append(r.took, receipt{id: id, ticket: ticket, delay: at.Sub(p.Timestamp)})
	w.WriteHeader(http.StatusNoContent)
}

func allDelivered(rs []*receiver, written map[string]written) bool {
	for _, r := range rs {
		r.mu.Lock()
		seen := map[string]bool{}
		for _, t := range r.took {
			seen[t.id] = true
		}
		r.mu.Unlock()
		if len(seen) < len(written) {
			return false
		}
	}
	return true
}

type verdict struct {
	distinct, failed, duplicates, outOfOrder int
	delays                                   []time.Duration
	problems                                 []error
}

// verify checks one receiver against the feed.
func (r *receiver) verify(written map[string]written) verdict {
	r.mu.Lock()
	defer r.mu.Unlock()
	var v verdict
	seen := map[string]bool{}
	last := map[string]int{} // per ticket, the feed index of the newest event taken
	for _, t := range r.took {
		w, ok := written[t.id]
		if !ok {
			v.problems = append(v.problems, fmt.Errorf("%s: took event %s, which is not in the feed", r.name, t.id))
			continue
		}
		if seen[t.id] {
			v.duplicates++
			if r.failed[t.id] == 0 {
				v.problems = append(v.problems, fmt.Errorf("%s: event %s delivered twice without a failure", r.name, t.id))
			}
			continue
		}
		seen[t.id] = true
		v.delays = append(v.delays, t.delay)
		if prev, ok := last[w.ticket]; ok && w.index < prev {
			v.outOfOrder++
			v.problems = append(v.problems, fmt.Errorf("%s: ticket %s's event %d arrived after its event %d", r.name, w.ticket, w.index, prev))
		}
		last[w.ticket] = w.index
	}
	v.distinct = len(seen)
	for _, n := range r.failed {
		v.failed += n
	}
	if v.distinct != len(written) {
		v.problems = append(v.problems, fmt.Errorf("%s: %d of %d events delivered", r.name, v.distinct, len(written)))
	}
	if r.badSigns > 0 {
		v.problems = append(v.problems, fmt.Errorf("%s: %d deliveries with a signature that does not verify", r.name, r.badSigns))
	}
	return v
}

// pct is the p-th percentile of ds (100: the largest).
func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, (len(s)*p+99)/100-1)
	return s[max(i, 0)].Round(time.Millisecond).String()
}
