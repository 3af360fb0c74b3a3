package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/obs"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/web"
)

// livePollsPerMinute is how often an open, visible page asks (live.js
// polls every 2.5 s).
const livePollsPerMinute = 60 / 2.5

// BenchmarkLivePoll is an idle open board's and ticket page's poll, the
// header's unread count and the Inbox page's marker, through the whole
// board handler (make bench-live): the store requests each costs
// (SQLite statements, DynamoDB requests, as the request log counts them),
// per poll and per open page per minute, and the poll's p50 latency. On
// SQLite, DynamoDB on minidyn, and moto when its endpoint is set.
func BenchmarkLivePoll(b *testing.B) {
	for _, backend := range testbackends.Names() {
		b.Run(backend, func(b *testing.B) {
			be := testbackends.Open(b, backend)
			svc, err := board.NewService(board.Config{Store: be.Store, BaseURL: "http://board.test"})
			if err != nil {
				b.Fatal(err)
			}
			person := board.WithPrincipal(context.Background(), board.Principal{Author: "human:local", Source: board.SourceWeb})
			for _, title := range []string{"one", "two", "three"} {
				if _, err := svc.CreateTicket(person, board.CreateTicketInput{RequestID: "bench-" + title, Workspace: "inbox", NewTicket: board.NewTicket{Title: title}}); err != nil {
					b.Fatal(err)
				}
			}
			accounts := auth.NewAccounts(auth.Config{Store: be.Store})
			resolver := auth.NewResolver(auth.ResolverConfig{Mode: auth.ModeLoopback, Accounts: accounts})
			h := web.New(web.Config{Service: svc, Accounts: accounts, Resolver: resolver})
			var storeRequests atomic.Int64
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec := obs.NewRequest("bench")
				h.ServeHTTP(w, r.WithContext(obs.NewContext(r.Context(), rec)))
				storeRequests.Add(rec.StoreRequests())
			}))
			b.Cleanup(ts.Close)
			// Every page's header asks the unread count too; the Inbox
			// page asks its own marker instead.
			markers := []struct{ name, path string }{
				{"board", "/w/inbox/changes"}, {"ticket", "/tickets/inbox-1/changes"},
				{"header-count", "/inbox/count/changes"}, {"inbox", "/inbox/changes"},
			}
			for _, m := range markers {
				b.Run(m.name, func(b *testing.B) { benchPoll(b, ts.URL+m.path, &storeRequests) })
			}
		})
	}
}

func benchPoll(b *testing.B, url string, storeRequests *atomic.Int64) {
	poll := func(etag string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("ETag")
	}
	_, etag := poll("")
	storeRequests.Store(0)
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if status, _ := poll(etag); status != http.StatusNotModified {
			b.Fatalf("an idle poll answered %d, want 304", status)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	perPoll := float64(storeRequests.Load()) / float64(len(took))
	b.ReportMetric(perPoll, "store-requests/poll")
	b.ReportMetric(perPoll*livePollsPerMinute, "store-requests/page-minute")
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(0, "ns/op") // the p50 says it; the mean would repeat it worse
}
