package edge

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// PublicHostOnly refuses every request whose Host is not the public base
// URL's, before any route sees it: a server reached through its proxy by
// one name answers to that name only, so a page on another name (DNS
// rebinding, a stray name pointed at the proxy) reaches none of its
// surfaces, and the Origin checks behind it compare with the name links
// and the OAuth issuer use. The default port of the base URL's scheme may
// be given or left out. base must be an absolute http or https URL.
func PublicHostOnly(base string, next http.Handler) (http.Handler, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("the public base URL %q is not an absolute http or https URL", base)
	}
	defaultPort := map[string]string{"http": "80", "https": "443"}[u.Scheme]
	want := normalHost(u.Host, defaultPort)
	refusal := "this server answers only as " + u.Scheme + "://" + u.Host + "/ (LEDGER_BASE_URL); open it there"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if normalHost(r.Host, defaultPort) != want {
			http.Error(w, refusal, http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

// normalHost is a Host in one spelling: lower case, no trailing dot, no
// default port, IPv6 in brackets.
func normalHost(host, defaultPort string) string {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h, port = strings.Trim(host, "[]"), ""
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if port == defaultPort {
		port = ""
	}
	if port == "" {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return net.JoinHostPort(h, port)
}
