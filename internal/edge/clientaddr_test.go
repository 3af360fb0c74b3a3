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
