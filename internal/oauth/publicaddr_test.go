package oauth

import (
	"net/netip"
	"testing"
)

// The SSRF guard of metadata document fetches: only a global unicast
// address outside every IANA special-purpose range is public.
func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.215.14": true, "2606:4700::6810:84e5": true, "2a00:1450:4001:80b::200e": true,
		"10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "127.0.0.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.1.2.3": false, "192.0.0.8": false, "192.0.2.1": false, "198.18.0.1": false,
		"198.51.100.1": false, "203.0.113.1": false, "240.0.0.1": false, "255.255.255.255": false, "192.88.99.1": false,
		"::1": false, "::": false, "fe80::1": false, "fc00::1": false, "fd12::1": false, "fec0::1": false, "ff02::1": false,
		"::ffff:10.0.0.1": false, "::ffff:127.0.0.1": false,
		"::a00:1":        false, // IPv4-compatible ::/96 (10.0.0.1)
		"::ffff:0:a00:1": false, // IPv4-translated ::ffff:0:0:0/96
		"64:ff9b::a00:1": false, // NAT64
		"2002:a00:1::1":  false, // 6to4 of 10.0.0.1
		"2001::1":        false, // Teredo
		"2001:db8::1":    false, // documentation
		"3fff::1":        false, // documentation (RFC 9637)
		"5f00::1":        false, // SRv6 SIDs
		"100::1":         false, // discard
	} {
		if got := publicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("publicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}
