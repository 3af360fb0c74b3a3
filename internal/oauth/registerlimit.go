package oauth

import (
	"net/netip"
	"sync"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// Registration is open to anyone (RFC 7591), so it is bounded: a few KiB a
// registration (maxRegistrationBodyBytes), an hour of life unless a grant
// uses it (unusedClientTTL), and per fixed window of registrationWindow at
// most registrationsPerAddr from one client address (per /64 for IPv6) and
// registrationsPerInstance from everyone together, in this process.
// claude.ai and Claude Code register once per connection attempt, far
// below these.
const (
	registrationWindow       = 10 * time.Minute
	registrationsPerAddr     = 10
	registrationsPerInstance = 200
	registrationAddrsMax     = 10_000
)

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
