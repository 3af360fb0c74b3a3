package oauth

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// Registration is open to anyone (RFC 7591), so it is bounded: a few KiB a
// registration (maxRegistrationBodyBytes), an hour of life unless a grant
// uses it (unusedClientTTL), and per fixed window of registrationWindow at
// most registrationsPerAddr from one client address (per /64 for IPv6) and
// registrationsPerInstance from everyone together, in this process, and
// registrationsPerStore stored by all instances together, counted in the
// store. claude.ai and Claude Code register once per connection attempt,
// far below these. The store-wide cap is what bounds the table: at most
// registrationsPerStore × 6 unused clients (an hour of windows) of at most
// a few KiB each.
const (
	registrationWindow       = 10 * time.Minute
	registrationsPerAddr     = 10
	registrationsPerInstance = 200
	registrationsPerStore    = 1000
	registrationAddrsMax     = 10_000
)

// countInStore counts one registration in the store's current window,
// shared by every instance: windows are aligned to registrationWindow so
// all instances agree on where one begins. It says how long until the
// window turns over when the window is full.
func (s *Server) countInStore(ctx context.Context) (bool, time.Duration, error) {
	now := s.now()
	window := now.Truncate(registrationWindow)
	ok, err := s.cfg.Store.CountOAuthRegistration(ctx, window, window.Add(2*registrationWindow), s.cfg.RegistrationsPerWindow)
	return ok, window.Add(registrationWindow).Sub(now), err
}

type registrationLimiter struct {
	mu     sync.Mutex
	start  time.Time
	total  int
	byAddr map[netip.Prefix]int
}

// allow counts one registration from addr at now, or says how long until
// the window turns over.
func (l *registrationLimiter) allow(addr netip.Addr, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byAddr == nil || now.Sub(l.start) >= registrationWindow {
		l.start, l.total, l.byAddr = now, 0, map[netip.Prefix]int{}
	}
	wait := l.start.Add(registrationWindow).Sub(now)
	k := edge.ClientPrefix(addr)
	if l.total >= registrationsPerInstance || l.byAddr[k] >= registrationsPerAddr ||
		(l.byAddr[k] == 0 && len(l.byAddr) >= registrationAddrsMax) {
		return false, wait
	}
	l.total++
	l.byAddr[k]++
	return true, 0
}
