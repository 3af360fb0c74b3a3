package edge

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[::ffff:192.0.2.7]:4000"
	if got := ClientAddr(r); got != netip.MustParseAddr("192.0.2.7") {
		t.Fatalf("peer address: got %v, want 192.0.2.7 (IPv4-mapped unmapped)", got)
	}
	r = WithClientAddr(r, netip.MustParseAddr("2001:db8::1"))
	if got := ClientAddr(r); got != netip.MustParseAddr("2001:db8::1") {
		t.Fatalf("decided address: got %v, want 2001:db8::1", got)
	}
	r = httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "not an address"
	if got := ClientAddr(r); got.IsValid() {
		t.Fatalf("unreadable peer: got %v, want the zero Addr", got)
	}
}

func TestClientPrefix(t *testing.T) {
	same := [][2]string{{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9"}, {"::ffff:192.0.2.1", "192.0.2.1"}}
	for _, p := range same {
		if ClientPrefix(netip.MustParseAddr(p[0])) != ClientPrefix(netip.MustParseAddr(p[1])) {
			t.Errorf("%s and %s should count as one client", p[0], p[1])
		}
	}
	differ := [][2]string{{"2001:db8:1:2::1", "2001:db8:1:3::1"}, {"192.0.2.1", "192.0.2.2"}}
	for _, p := range differ {
		if ClientPrefix(netip.MustParseAddr(p[0])) == ClientPrefix(netip.MustParseAddr(p[1])) {
			t.Errorf("%s and %s should count as two clients", p[0], p[1])
		}
	}
}
