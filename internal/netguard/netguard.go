// Package netguard decides which addresses the server may connect to when
// someone else chose the URL (an OAuth client's metadata document, a
// webhook's endpoint): only public unicast hosts, checked where the
// connection is made, so that such a URL cannot reach what the server's
// network protects.
package netguard

import (
	"fmt"
	"net/netip"
	"sync"
	"syscall"
)

// The check runs in the dialer's Control hook, after name resolution and
// for every address the dialer tries: a name that resolves (or re-resolves
// between a check and the connection) to 127.0.0.1 or 10.0.0.0/8 is
// refused where the connection is made, not only where the URL is read.

// specialUse are ranges that are no public host (the IANA IPv4 and IPv6
// special-purpose address registries, RFC 6890 and its updates) beyond what
// netip's predicates name: shared address space, IETF protocol
// assignments, documentation (192.0.2/24 and friends, 2001:db8::/32,
// 3fff::/20), benchmarking, reserved, the 6to4 relay anycast, IPv4-
// compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) addresses,
// NAT64 and 6to4 (which embed IPv4 addresses that may be private),
// Teredo, discard, SRv6 SIDs (5f00::/16), unique and site local.
// (Parsed on first use, not at start: a cold start pays nothing for it.)
var specialUse = sync.OnceValue(func() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"192.88.99.0/24",
		"::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16",
		"3fff::/20", "5f00::/16", "fc00::/7", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
})

// Public says whether ip is a public host: a global unicast address outside
// every special-use range (an IPv4-mapped address is judged as its IPv4).
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() ||
		ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range specialUse() {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// NotPublic is the phrase every refusal carries, so that a caller can name
// the reason to a person without the address's details.
const NotPublic = "not a public address"

// DialControl is a net.Dialer Control hook that refuses a connection to an
// address that is not Public, unless permit (which may be nil) allows that
// address and port (tests: a test server's own loopback port). hint, if
// not empty, is added to the refusal: what the operator could change.
func DialControl(permit func(netip.AddrPort) bool, hint string) func(network, address string, _ syscall.RawConn) error {
	if hint != "" {
		hint = " (" + hint + ")"
	}
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("refusing to connect to %q: not an IP address and port", address)
		}
		if permit != nil && permit(ap) {
			return nil
		}
		if !Public(ap.Addr()) {
			return fmt.Errorf("refusing to connect to %s: %s%s", ap.Addr(), NotPublic, hint)
		}
		return nil
	}
}
