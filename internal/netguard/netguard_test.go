package netguard

import (
	"net/netip"
	"strings"
	"testing"
)

// Only a global unicast address outside every IANA special-purpose range
// is public.
func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.215.14": true, "2606:4700::6810:84e5": true, "2a00:1450:4001:80b::200e": true,
		"10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "127.0.0.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.1.2.3": false, "192.0.0.8": false, "192.0.2.1": false, "198.18.0.1": false,
		"198.51.100.1": false, "203.0.113.1": false, "240.0.0.1": false, "255.255.255.255": false, "192.88.99.1": false,
		"::1": false, "::": false, "fe80::1": false, "fc00::1": false, "fd12::1": false, "fec0::1": false, "ff02::1": false,
		"::ffff:10.0.0.1": false, "::ffff:127.0.0.1": false, "::ffff:8.8.8.8": true,
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
		if got := Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
	if Public(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

// The dial hook refuses every address that is not a public host, names
// the reason and the hint, and lets through exactly what permit allows.
func TestDialControl(t *testing.T) {
	guard := DialControl(nil, "")
	refused := []string{"127.0.0.1:443", "127.1.2.3:443", "[::1]:443", "10.0.0.1:443", "172.16.0.1:443", "192.168.1.1:443",
		"169.254.169.254:80", "[fe80::1]:443", "[fd00::1]:443", "[fc00::1]:443", "0.0.0.0:443", "[::]:443", "100.64.0.1:443",
		"224.0.0.1:443", "255.255.255.255:443", "192.0.2.1:443", "198.18.0.1:443", "240.0.0.1:443",
		"[::ffff:127.0.0.1]:443", "[::ffff:10.0.0.1]:443", "[64:ff9b::a00:1]:443", "[2002:a00:1::1]:443", "[2001:db8::1]:443",
		"[ff02::1]:443", "example.com:443"}
	for _, a := range refused {
		if err := guard("tcp", a, nil); err == nil {
			t.Errorf("%s: allowed, want refused", a)
		}
	}
	for _, a := range []string{"8.8.8.8:443", "1.1.1.1:443", "[2606:4700:4700::1111]:443", "160.79.104.10:443"} {
		if err := guard("tcp", a, nil); err != nil {
			t.Errorf("%s: %v, want allowed", a, err)
		}
	}
	err := DialControl(nil, "SOME_SWITCH=1 allows it")("tcp", "10.0.0.1:443", nil)
	if err == nil || !strings.Contains(err.Error(), NotPublic) || !strings.HasSuffix(err.Error(), "(SOME_SWITCH=1 allows it)") {
		t.Errorf("refusal %v: want it to say %q and end with the hint", err, NotPublic)
	}
	permitted := netip.MustParseAddrPort("127.0.0.1:8443")
	guard = DialControl(func(ap netip.AddrPort) bool { return ap == permitted }, "")
	if guard("tcp", "127.0.0.1:8443", nil) != nil || guard("tcp", "127.0.0.1:8444", nil) == nil {
		t.Error("permit allows exactly the address and port it names")
	}
}
