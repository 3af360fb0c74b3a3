package edge

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// seen is what the handler behind TrustProxies sees of a request.
type seen struct {
	client netip.Addr
	host   string
	xff    string
}

func throughProxies(t *testing.T, trusted []string, peer, host string, headers map[string][]string) seen {
	t.Helper()
	var prefixes []netip.Prefix
	for _, p := range trusted {
		prefixes = append(prefixes, netip.MustParsePrefix(p))
	}
	var got seen
	h := TrustProxies(prefixes, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = seen{client: ClientAddr(r), host: r.Host, xff: r.Header.Get("X-Forwarded-For")}
	}))
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr, r.Host = peer, host
	for k, vs := range headers {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	h.ServeHTTP(httptest.NewRecorder(), r)
	return got
}

func TestProxyForwardedClientOnlyFromTrustedPeer(t *testing.T) {
	proxy := []string{"127.0.0.1/32", "10.0.0.0/8"}
	for _, c := range []struct {
		name     string
		trusted  []string
		peer     string
		headers  map[string][]string
		client   string
		host     string
		keepsXFF bool
	}{
		{name: "no proxy trusted: the peer, headers dropped", peer: "192.0.2.7:5000",
			headers: map[string][]string{"X-Forwarded-For": {"203.0.113.9"}, "X-Forwarded-Host": {"board.example.com"}},
			client:  "192.0.2.7", host: "evil.example"},
		{name: "an untrusted peer's claim is ignored", trusted: proxy, peer: "192.0.2.7:5000",
			headers: map[string][]string{"X-Forwarded-For": {"127.0.0.1, 203.0.113.9"}, "Forwarded": {"for=198.51.100.1"}},
			client:  "192.0.2.7", host: "evil.example"},
		{name: "a trusted proxy's client", trusted: proxy, peer: "127.0.0.1:5000",
			headers: map[string][]string{"X-Forwarded-For": {"203.0.113.9"}, "X-Forwarded-Host": {"board.example.com"}},
			client:  "203.0.113.9", host: "board.example.com", keepsXFF: true},
		{name: "the right-most untrusted hop, not the client's own claim", trusted: proxy, peer: "127.0.0.1:5000",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.66, 203.0.113.9", "10.1.1.1"}},
			client:  "203.0.113.9", host: "evil.example", keepsXFF: true},
		{name: "every hop trusted: the left-most", trusted: proxy, peer: "127.0.0.1:5000",
			headers: map[string][]string{"X-Forwarded-For": {"10.2.2.2, 10.1.1.1"}},
			client:  "10.2.2.2", host: "evil.example", keepsXFF: true},
		{name: "an unreadable hop stops the walk", trusted: proxy, peer: "127.0.0.1:5000",
			headers: map[string][]string{"X-Forwarded-For": {"203.0.113.9, garbage, 10.1.1.1"}},
			client:  "10.1.1.1", host: "evil.example", keepsXFF: true},
		{name: "a trusted proxy without headers: the peer", trusted: proxy, peer: "127.0.0.1:5000",
			client: "127.0.0.1", host: "evil.example"},
		{name: "Forwarded, IPv6 with a port, and its host", trusted: proxy, peer: "127.0.0.1:5000",
			headers: map[string][]string{"Forwarded": {`for=198.51.100.66;host=spoof.example, for="[2001:db8::17]:4711";proto=https;host=board.example.com`}},
			client:  "2001:db8::17", host: "board.example.com"},
		{name: "X-Forwarded-For wins over Forwarded", trusted: proxy, peer: "127.0.0.1:5000",
			headers: map[string][]string{"X-Forwarded-For": {"203.0.113.9"}, "Forwarded": {"for=198.51.100.66"}},
			client:  "203.0.113.9", host: "evil.example", keepsXFF: true},
		{name: "IPv4 with a port, mapped peer", trusted: proxy, peer: "[::ffff:127.0.0.1]:5000",
			headers: map[string][]string{"X-Forwarded-For": {"203.0.113.9:1234"}},
			client:  "203.0.113.9", host: "evil.example", keepsXFF: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := throughProxies(t, c.trusted, c.peer, "evil.example", c.headers)
			if got.client != netip.MustParseAddr(c.client) {
				t.Errorf("client %v, want %s", got.client, c.client)
			}
			if got.host != c.host {
				t.Errorf("host %q, want %q", got.host, c.host)
			}
			if (got.xff != "") != c.keepsXFF {
				t.Errorf("X-Forwarded-For behind the edge = %q; kept %v, want kept %v", got.xff, got.xff != "", c.keepsXFF)
			}
		})
	}
}

func TestPublicHostOnly(t *testing.T) {
	for base, hosts := range map[string]map[string]bool{
		"https://board.example.com": {"board.example.com": true, "Board.Example.COM.": true, "board.example.com:443": true,
			"board.example.com:8443": false, "evil.example": false, "127.0.0.1:8080": false, "": false, "board.example.com.evil.example": false},
		"http://board.lan:8080":       {"board.lan:8080": true, "board.lan": false, "board.lan:80": false},
		"https://[2001:db8::1]":       {"[2001:db8::1]": true, "[2001:db8::1]:443": true, "[2001:db8::2]": false},
		"http://127.0.0.1:8080":       {"127.0.0.1:8080": true, "localhost:8080": false},
		"https://board.example.com:1": {"board.example.com:1": true, "board.example.com": false},
	} {
		h, err := PublicHostOnly(base, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		if err != nil {
			t.Fatal(err)
		}
		for host, want := range hosts {
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if got := rec.Code == http.StatusOK; got != want {
				t.Errorf("base %s, Host %q: %d, want served %v", base, host, rec.Code, want)
			}
		}
	}
	if _, err := PublicHostOnly("board.example.com", http.NotFoundHandler()); err == nil {
		t.Error("a base URL without a scheme was taken")
	}
}
