package bench

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkCreateVsNoop measures create_ticket on the embedded store and the
// no-op tool, each at 1 and 32 concurrent clients; b.N calls are spread over
// the clients. Besides ns/op (wall time per call, all clients together) it
// reports calls/s, the p50/p99 latency of one call, the process's CPU per
// call (server and clients together: unlike ns/op it hardly moves with
// the machine's load) and allocs/op (every goroutine's). For the side-by-side
// table with the ratio and medians of several rounds:
// go run ./bench/cmd/createvsnoop.
func BenchmarkCreateVsNoop(b *testing.B) {
	for _, clients := range []int{1, 32} {
		for _, kind := range []string{"noop", "create"} {
			b.Run(fmt.Sprintf("%s/clients=%d", kind, clients), func(b *testing.B) {
				ctx := context.Background()
				target := newTarget(ctx, b, kind)
				c, err := Connect(ctx, target, clients)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				b.ReportAllocs()
				b.ResetTimer()
				r, err := c.RunCalls(ctx, b.N)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(r.Throughput(), "calls/s")
				b.ReportMetric(float64(r.P50)/float64(time.Microsecond), "p50-µs")
				b.ReportMetric(float64(r.P99)/float64(time.Microsecond), "p99-µs")
				b.ReportMetric(float64(r.CPUPerCall())/float64(time.Microsecond), "cpu-µs/call")
			})
		}
	}
}

// TestHarness keeps the harness working: both servers answer every call.
func TestHarness(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"noop", "create"} {
		target := newTarget(ctx, t, kind)
		c, err := Connect(ctx, target, 4)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.RunCalls(ctx, 40)
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if r.Calls != 40 || r.P50 <= 0 || r.P99 < r.P50 {
			t.Errorf("%s: %+v", kind, r)
		}
	}
}

func newTarget(ctx context.Context, tb testing.TB, kind string) *Target {
	tb.Helper()
	if kind == "noop" {
		target := NewNoop()
		tb.Cleanup(target.Close)
		return target
	}
	target, err := NewCreate(ctx, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(target.Close)
	return target
}
