package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBodyBytes bounds a request: the largest legitimate call (a 20 000
// character body of 4-byte characters, plus tags and links) fits well inside.
const MaxBodyBytes = 1 << 20

// HandlerOptions configure the HTTP side of /mcp.
type HandlerOptions struct {
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed
	// besides the server's own; requests without Origin (non-browser
	// clients) are always allowed.
	AllowedOrigins []string
	// BehindProxy turns off the loopback Host check, for API Gateway where
	// the Host is the public name by design.
	BehindProxy bool
}

// Handler serves the MCP server statelessly: no session state between
// requests, so any instance answers any request; JSON responses; and the
// handler context ends when the client closes the request (2026-07-28).
func Handler(server *mcp.Server, opts HandlerOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		JSONResponse:                 true,
		PropagateRequestCancellation: true,
		DisableLocalhostProtection:   opts.BehindProxy,
		MaxRequestBodyBytes:          MaxBodyBytes,
	})
	return checkOrigin(opts.AllowedOrigins, requireUTF8(h))
}

// checkOrigin refuses browser requests from other origins (DNS rebinding and
// cross-site requests), as the MCP transport rules require.
func checkOrigin(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !originAllowed(origin, r.Host, allowed) {
			writeRPCError(w, http.StatusForbidden, -32600, fmt.Sprintf("origin %q is not allowed to call this server; "+
				"call it from the server's own origin or add the origin to LEDGER_ALLOWED_ORIGINS", origin))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin, host string, allowed []string) bool {
	if slices.Contains(allowed, strings.TrimRight(origin, "/")) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

// requireUTF8 refuses a body that is not valid UTF-8 before JSON decoding
// would quietly turn bad bytes into U+FFFD and store them.
func requireUTF8(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			writeRPCError(w, http.StatusRequestEntityTooLarge, -32600, fmt.Sprintf("request body is larger than %d bytes; "+
				"ticket bodies are limited to 20000 characters and notes to 10000", MaxBodyBytes))
			return
		}
		if !utf8.Valid(body) {
			writeRPCError(w, http.StatusBadRequest, -32700, "request body is not valid UTF-8; send text encoded as UTF-8. Nothing was written")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

func writeRPCError(w http.ResponseWriter, status, code int, message string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
