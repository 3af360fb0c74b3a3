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
	return checkOrigin(opts.AllowedOrigins, requireUTF8(methodNotFound(h)))
}

// methodNotFound answers a JSON-RPC request for a method the SDK does not
// know with a JSON-RPC error -32601 (Method not found), as JSON-RPC requires.
// Before 2026-07-28 the SDK refuses such a request with a plain-text HTTP 400
// ("JSON RPC not handled: ..."), which clients cannot read as a JSON-RPC
// error; on 2026-07-28 it already answers 404 with -32601, and that is left
// as it is. The body was buffered by requireUTF8.
func methodNotFound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &call) != nil || len(call.ID) == 0 || string(call.ID) == "null" || call.Method == "" {
			next.ServeHTTP(w, r)
			return
		}
		cw := &catch400{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if !cw.caught {
			return
		}
		if !strings.HasPrefix(cw.body.String(), "JSON RPC not handled") {
			cw.release()
			return
		}
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": call.ID, "error": map[string]any{
			"code":    -32601,
			"message": fmt.Sprintf("method not found: %q is not a method this server serves", call.Method),
		}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Del("X-Content-Type-Options")
		w.WriteHeader(http.StatusOK)
		w.Write(resp)
	})
}

// catch400 holds back a 400 response so that methodNotFound can replace it;
// every other response passes straight through.
type catch400 struct {
	http.ResponseWriter
	caught bool
	status int
	body   bytes.Buffer
}

func (c *catch400) WriteHeader(status int) {
	if status == http.StatusBadRequest && !c.caught && c.status == 0 {
		c.caught, c.status = true, status
		return
	}
	if c.status == 0 {
		c.status = status
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *catch400) Write(b []byte) (int, error) {
	if c.caught {
		return c.body.Write(b)
	}
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.ResponseWriter.Write(b)
}

// release sends the held-back 400 as it was.
func (c *catch400) release() {
	c.ResponseWriter.WriteHeader(c.status)
	c.ResponseWriter.Write(c.body.Bytes())
}

func (c *catch400) Flush() {
	if !c.caught {
		http.NewResponseController(c.ResponseWriter).Flush()
	}
}

func (c *catch400) Unwrap() http.ResponseWriter { return c.ResponseWriter }

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
