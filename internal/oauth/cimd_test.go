package oauth_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// docServer serves client ID metadata documents over TLS on loopback and
// counts what it is asked for.
type docServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	gate chan struct{} // the slow document waits for it
}

func newDocServer(t *testing.T) *docServer {
	t.Helper()
	d := &docServer{hits: map[string]int{}, gate: make(chan struct{})}
	d.Server = httptest.NewTLSServer(http.HandlerFunc(d.serve))
	t.Cleanup(func() { close(d.gate); d.Close() })
	return d
}

func (d *docServer) hit(path string) int { d.mu.Lock(); defer d.mu.Unlock(); return d.hits[path] }

func (d *docServer) serve(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.hits[r.URL.Path]++
	d.mu.Unlock()
	id := d.URL + r.URL.Path
	doc := map[string]any{"client_id": id, "client_name": "Test Agent", "redirect_uris": []string{"http://localhost/callback", "https://agent.example/cb"},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/client.json":
		w.Header().Set("Cache-Control", "public, max-age=600")
	case "/big.json":
		doc["client_uri"] = "https://agent.example/" + strings.Repeat("x", 6000)
	case "/slow.json":
		<-d.gate
	case "/redirect.json":
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		return
	case "/wrong-id.json":
		doc["client_id"] = d.URL + "/client.json"
	case "/secret.json":
		doc["client_secret"] = "s3cret"
	case "/html.json":
		w.Header().Set("Content-Type", "text/html")
	case "/missing.json":
		http.NotFound(w, r)
		return
	}
	json.NewEncoder(w).Encode(doc)
}

// fetchConfig trusts the server's certificate and permits its address
// (and nothing else on loopback).
func (d *docServer) fetchConfig(permit bool) oauth.FetchConfig {
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	cfg := oauth.FetchConfig{TLS: &tls.Config{RootCAs: pool}, Timeout: 2 * time.Second}
	if permit {
		addr := netip.MustParseAddrPort(d.Listener.Addr().String())
		cfg.Permit = func(ap netip.AddrPort) bool { return ap == addr }
	}
	return cfg
}

// A client whose client_id is an https URL: its document is fetched once
// and cached in the store (every instance shares it) for its max-age; its
// redirect_uris are the only ones allowed; the code flow runs as for a
// registered client, and the approval page says the app was verified.
func TestMetadataDocumentClient(t *testing.T) {
	eachStore(t, func(t *testing.T, backend string) {
		d := newDocServer(t)
		e := newEnv(t, backend, d.fetchConfig(true))
		clientID := d.URL + "/client.json"
		alice := e.signedIn("alice")
		p := newPKCE()
		q := authRequest(clientID, "http://localhost:40111/callback", p, "s", "")
		page := alice.get(e.url + oauth.PathAuthorize + "?" + q.Encode())
		wantStatus(t, "approval page", page, http.StatusOK)
		host := strings.TrimPrefix(d.URL, "https://")
		// A loopback redirect: the page names who publishes the details,
		// and warns that the program on localhost is not checked.
		for _, want := range []string{"Connect Test Agent?", "whose details <b>" + host + "</b> publishes", "nobody has checked", `value="test-agent"`} {
			if !strings.Contains(page.body, want) {
				t.Fatalf("approval page lacks %q:\n%s", want, page.body)
			}
		}
		// A second instance reads the store's copy (the session cookie is
		// the host's, whatever the port): still one fetch.
		second := e.serve(e.store, e.url)
		wantStatus(t, "the approval page on a second instance", alice.get(second+oauth.PathAuthorize+"?"+q.Encode()), http.StatusOK)
		loc := alice.approve(q, "test-agent")
		if n := d.hit("/client.json"); n != 1 {
			t.Fatalf("the document was fetched %d times for four readings on two instances, want 1 (cached)", n)
		}
		tr := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
			"redirect_uri": {"http://localhost:40111/callback"}, "client_id": {clientID}, "code_verifier": {p.verifier}}, nil)
		wantStatus(t, "code exchange", tr, http.StatusOK)
		tok := tokens{access: tr.json(t)["access_token"].(string), refresh: tr.json(t)["refresh_token"].(string), clientID: clientID}
		wantStatus(t, "a call", e.api(e.url, tok.access), http.StatusOK)
		wantStatus(t, "refresh", e.refresh(tok), http.StatusOK)
		if agents := alice.get(e.url + "/agents"); !strings.Contains(agents.body, "Test Agent") || !strings.Contains(agents.body, host) {
			t.Fatalf("Connected agents does not show the app and its host:\n%s", agents.body)
		}

		// Only the document's redirect URIs.
		bad := alice.get(e.url + oauth.PathAuthorize + "?" + authRequest(clientID, "https://evil.example/cb", newPKCE(), "s", "").Encode())
		if bad.status != http.StatusBadRequest || bad.header.Get("Location") != "" {
			t.Fatalf("a redirect_uri the document does not list: HTTP %d Location %q", bad.status, bad.header.Get("Location"))
		}
		// After its max-age the document is fetched again.
		e.clock.Add(601 * time.Second)
		alice.get(e.url + oauth.PathAuthorize + "?" + q.Encode())
		if n := d.hit("/client.json"); n != 2 {
			t.Fatalf("after max-age the document was fetched %d times in all, want 2", n)
		}
	})
}

// Documents that are refused, and why: each shows the person an error
// page and sends the browser nowhere.
func TestMetadataDocumentRefused(t *testing.T) {
	d := newDocServer(t)
	cfg := d.fetchConfig(true)
	cfg.Timeout = 500 * time.Millisecond
	e := newEnv(t, "sqlite", cfg)
	witness := newDocServer(t) // a loopback server nothing may reach
	alice := e.signedIn("alice")
	for _, c := range []struct {
		what, clientID, want string
	}{
		{"too large", d.URL + "/big.json", "larger than 5120 bytes"},
		{"slow", d.URL + "/slow.json", "did not answer within 500ms"},
		{"not https", strings.Replace(d.URL, "https://", "http://", 1) + "/client.json", "neither a client registered here"},
		{"redirecting to loopback", d.URL + "/redirect.json?to=" + url.QueryEscape(witness.URL+"/client.json"), "never fetched through a redirect"},
		{"redirecting to a private address", d.URL + "/redirect.json?to=" + url.QueryEscape("https://10.0.0.1/client.json"), "never fetched through a redirect"},
		{"naming another client_id", d.URL + "/wrong-id.json", "is not the URL it was fetched from"},
		{"with a secret", d.URL + "/secret.json", "client_secret"},
		{"not JSON", d.URL + "/html.json", "not JSON"},
		{"missing", d.URL + "/missing.json", "HTTP 404"},
		{"with no path", d.URL, "must have a path"},
		{"on a loopback host the server may not reach", witness.URL + "/client.json", "not a public address"},
	} {
		q := authRequest(c.clientID, "http://localhost:40111/callback", newPKCE(), "s", "")
		r := alice.get(e.url + oauth.PathAuthorize + "?" + q.Encode())
		if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || !strings.Contains(r.body, c.want) {
			t.Errorf("a document %s: HTTP %d Location %q, want 400 saying %q:\n%s", c.what, r.status, r.header.Get("Location"), c.want, r.body)
		}
	}
	if n := witness.hit("/client.json"); n != 0 {
		t.Fatalf("the loopback witness was reached %d times", n)
	}
	// Nothing refused was cached: the good document still works, fetched once.
	if r := alice.get(e.url + oauth.PathAuthorize + "?" + authRequest(d.URL+"/client.json", "http://localhost:1/callback", newPKCE(), "s", "").Encode()); r.status != http.StatusOK {
		t.Fatalf("the good document after the refusals: HTTP %d", r.status)
	}
}

// The address check runs where the connection is made, on every address a
// name resolves to: "localhost" names no public address, so the server
// never connects, though the URL itself names no IP address.
func TestMetadataDocumentResolvedAddressChecked(t *testing.T) {
	d := newDocServer(t)
	e := newEnv(t, "sqlite", d.fetchConfig(false)) // nothing permitted
	port := d.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":"):]
	clientID := "https://localhost" + port + "/client.json"
	r := e.signedIn("alice").get(e.url + oauth.PathAuthorize + "?" + authRequest(clientID, "http://localhost:1/callback", newPKCE(), "s", "").Encode())
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "not a public address") {
		t.Fatalf("a name that resolves to loopback: HTTP %d, want refused at dial time:\n%s", r.status, r.body)
	}
	if n := d.hit("/client.json"); n != 0 {
		t.Fatalf("the server connected anyway (%d requests)", n)
	}
}

// A refused document is shown with a short reason (the detail, such as a
// TLS or resolver error, goes only to the log), and is remembered for a
// minute: a reload does not fetch it again.
func TestMetadataDocumentFailureIsShortAndRemembered(t *testing.T) {
	d := newDocServer(t)
	e := newEnv(t, "sqlite", d.fetchConfig(true))
	alice := e.signedIn("alice")
	missing := authRequest(d.URL+"/missing.json", "http://localhost:40111/callback", newPKCE(), "s", "")
	for i := range 2 {
		if r := alice.get(e.url + oauth.PathAuthorize + "?" + missing.Encode()); r.status != http.StatusBadRequest || !strings.Contains(r.body, "HTTP 404") {
			t.Fatalf("request %d for a missing document: HTTP %d", i, r.status)
		}
	}
	if n := d.hit("/missing.json"); n != 1 {
		t.Fatalf("the missing document was fetched %d times for two requests within a minute, want once", n)
	}

	// A server whose certificate is not trusted: the page says so in a few
	// words, without the verifier's message.
	untrusting := d.fetchConfig(true)
	untrusting.TLS = nil
	e2 := newEnv(t, "sqlite", untrusting)
	r := e2.signedIn("alice").get(e2.url + oauth.PathAuthorize + "?" + authRequest(d.URL+"/client.json", "http://localhost:1/callback", newPKCE(), "s", "").Encode())
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "TLS certificate could not be verified") ||
		strings.Contains(r.body, "x509") || strings.Contains(r.body, "certificate signed by") {
		t.Fatalf("an untrusted certificate: HTTP %d, want a short reason without internals:\n%s", r.status, r.body)
	}
}

// A metadata document proves who publishes an app's details, not that the
// program on localhost it sends the person back to is that app: with a
// loopback redirect the approval page warns as for an unverified app.
func TestMetadataDocumentWithLoopbackRedirectWarns(t *testing.T) {
	d := newDocServer(t)
	e := newEnv(t, "sqlite", d.fetchConfig(true))
	alice := e.signedIn("alice")
	local := alice.get(e.url + oauth.PathAuthorize + "?" + authRequest(d.URL+"/client.json", "http://localhost:40111/callback", newPKCE(), "s", "").Encode())
	remote := alice.get(e.url + oauth.PathAuthorize + "?" + authRequest(d.URL+"/client.json", "https://agent.example/cb", newPKCE(), "s", "").Encode())
	if local.status != http.StatusOK || remote.status != http.StatusOK {
		t.Fatalf("approval pages: %d %d", local.status, remote.status)
	}
	if !strings.Contains(local.body, `class="warning"`) || !strings.Contains(local.body, "nobody has checked") {
		t.Fatalf("a verified app with a loopback redirect gets no warning:\n%s", local.body)
	}
	if strings.Contains(remote.body, `class="warning"`) {
		t.Fatalf("a verified app with an https redirect is warned about")
	}
}
