package auth

import (
	"net/netip"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// Per client address, in this process: at most addrInFlight sign-ins
// checking a password at once, and addrPerWindow attempts per addrWindow.
// The per-handle limit stops guessing one person's password; this stops
// one client from filling the process's few hashing slots (each hash takes
// about a second and 64 MiB), so people signing in from elsewhere are not
// queued behind it. IPv6 clients are counted per /64, what one host is
// usually given.
const (
	addrInFlight  = 1
	addrPerWindow = 20
	addrWindow    = time.Minute
	// addrGateMax bounds the table; past it, windows that ended are
	// dropped first, and if none has, the gate refuses new addresses
	// rather than grow without bound.
	addrGateMax = 100_000
)

type addrCount struct {
	inFlight int
	start    time.Time // of the current window
	attempts int
}

// addrGate counts sign-in attempts per client address.
type addrGate struct {
	mu   sync.Mutex
	seen map[netip.Prefix]*addrCount
}

func newAddrGate() *addrGate { return &addrGate{seen: map[netip.Prefix]*addrCount{}} }

// enter admits one attempt from addr at now, or says how long to wait. An
// admitted attempt must call the returned leave when its check is done.
// An unknown address (zero) shares one count.
func (g *addrGate) enter(addr netip.Addr, now time.Time) (leave func(), wait time.Duration) {
	k := edge.ClientPrefix(addr)
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.seen[k]
	if c == nil {
		if len(g.seen) >= addrGateMax {
			g.dropEnded(now)
			if len(g.seen) >= addrGateMax {
				return nil, addrWindow
			}
		}
		c = &addrCount{start: now}
		g.seen[k] = c
	}
	if now.Sub(c.start) >= addrWindow {
		c.start, c.attempts = now, 0
	}
	if c.inFlight >= addrInFlight {
		return nil, time.Second
	}
	if c.attempts >= addrPerWindow {
		return nil, c.start.Add(addrWindow).Sub(now)
	}
	c.inFlight++
	c.attempts++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		c.inFlight--
	}, 0
}

func (g *addrGate) dropEnded(now time.Time) {
	for k, c := range g.seen {
		if c.inFlight == 0 && now.Sub(c.start) >= addrWindow {
			delete(g.seen, k)
		}
	}
}
