package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ticket-ledger/ticket-ledger/internal/edge"
)

// MaxBodyBytes bounds a request, as on the REST API (edge.MaxBodyBytes).
const MaxBodyBytes = edge.MaxBodyBytes

// HandlerOptions configure the HTTP side of /mcp.
type HandlerOptions struct {
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed
	// besides the server's own; requests without Origin (non-browser
	// clients) are always allowed.
	AllowedOrigins []string
	// BehindProxy turns off the loopback Host check, for API Gateway where
	// the Host is the public name by design.
	BehindProxy bool
	// AnswerBytesInFlight bounds the bytes of answers being encoded and
	// sent at once (answergate.go); 0: DefaultAnswerBytesInFlight.
	AnswerBytesInFlight int64
}

// Handler serves the MCP server statelessly: no session state between
// requests, so any instance answers any request; JSON responses; and the
// handler context ends when the client closes the request (2026-07-28).
func Handler(server *mcp.Server, opts HandlerOptions) http.Handler {
	h, _ := handler(server, opts)
	return h
}

func handler(server *mcp.Server, opts HandlerOptions) (http.Handler, *answerGate) {
	gate := newAnswerGate(opts.AnswerBytesInFlight)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		JSONResponse:                 true,
		PropagateRequestCancellation: true,
		DisableLocalhostProtection:   opts.BehindProxy,
		MaxRequestBodyBytes:          MaxBodyBytes,
	})
	return gate.wrap(checkOrigin(opts.AllowedOrigins, requireUTF8(checkJSONRPC(checkTaskHeaders(plainErrorsAsJSONRPC(missingCapability400(h))))))), gate
}

// plainErrorsAsJSONRPC turns what the SDK still refuses with a plain-text
// HTTP error (after checkJSONRPC) into a JSON-RPC error object, so that no
// POST is ever answered with a body a client cannot read as JSON-RPC:
//   - a request for a method the SDK does not know: before 2026-07-28 the
//     SDK answers HTTP 400 "JSON RPC not handled"; JSON-RPC wants -32601
//     (Method not found), answered with HTTP 200 as other errors of a
//     well-formed request are (on 2026-07-28 the SDK already answers 404
//     with -32601, and that is left as it is);
//   - anything else the SDK refuses in plain text keeps its status and
//     becomes -32600 (Invalid Request) with the SDK's reason.
//
// The body was buffered by requireUTF8.
func plainErrorsAsJSONRPC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body := bodyBytes(r)
		cw := &catchPlain{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		if !cw.caught {
			return
		}
		// Only now, in the rare case of a refusal, is the message read
		// for its id and method (checkJSONRPC found it well formed).
		var id json.RawMessage
		var method string
		if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' {
			m := topLevel(b)
			if validID(m.id) {
				id = m.id
			}
			_ = json.Unmarshal(m.method, &method)
		}
		text := strings.TrimSpace(cw.body.String())
		legacy := r.Header.Get("Mcp-Protocol-Version") < "2026-07-28"
		if legacy && id != nil && method != "" && strings.HasPrefix(text, "JSON RPC not handled") {
			writeRPCErrorID(w, http.StatusOK, id, -32601, fmt.Sprintf("method not found: %q is not a method this server serves", method))
			return
		}
		writeRPCErrorID(w, cw.status, id, codeInvalidRequest, "invalid request: "+text)
	})
}

// catchPlain holds back an error response (4xx, 5xx) that is not JSON so
// that plainErrorsAsJSONRPC can replace it; every other response passes
// straight through.
type catchPlain struct {
	http.ResponseWriter
	caught bool
	status int
	body   bytes.Buffer
}

func (c *catchPlain) WriteHeader(status int) {
	if c.status == 0 && status >= 400 && !strings.HasPrefix(c.Header().Get("Content-Type"), "application/json") {
		c.caught, c.status = true, status
		c.Header().Del("Content-Type")
		c.Header().Del("X-Content-Type-Options")
		return
	}
	if c.status == 0 {
		c.status = status
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *catchPlain) Write(b []byte) (int, error) {
	if c.caught {
		return c.body.Write(b)
	}
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.ResponseWriter.Write(b)
}

func (c *catchPlain) Flush() {
	if !c.caught {
		http.NewResponseController(c.ResponseWriter).Flush()
	}
}

func (c *catchPlain) Unwrap() http.ResponseWriter { return c.ResponseWriter }

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
		body, err := edge.ReadBody(w, r, MaxBodyBytes)
		var tooLarge *edge.BodyTooLargeError
		switch {
		case errors.As(err, &tooLarge):
			writeRPCError(w, http.StatusRequestEntityTooLarge, -32600, fmt.Sprintf("request body is larger than %d bytes; "+
				"ticket bodies are limited to 20000 characters and notes to 10000", MaxBodyBytes))
			return
		case errors.Is(err, edge.ErrNotUTF8):
			writeRPCError(w, http.StatusBadRequest, -32700, "request body is not valid UTF-8; send text encoded as UTF-8. Nothing was written")
			return
		case err != nil:
			writeRPCError(w, http.StatusBadRequest, -32700, "request body could not be read: "+err.Error()+". Nothing was written")
			return
		}
		r.Body = &bufferedBody{Reader: bytes.NewReader(body), data: body}
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// bufferedBody is a request body read once, by requireUTF8: the checks
// after it read its bytes in place (bodyBytes) instead of each reading and
// copying the body again.
type bufferedBody struct {
	*bytes.Reader
	data []byte
}

func (*bufferedBody) Close() error { return nil }

// bodyBytes is the whole body of r, which stays readable from its start.
func bodyBytes(r *http.Request) []byte {
	if b, ok := r.Body.(*bufferedBody); ok {
		return b.data
	}
	data, _ := io.ReadAll(r.Body)
	r.Body = &bufferedBody{Reader: bytes.NewReader(data), data: data}
	return data
}

// Deny answers a request refused before MCP sees it (no or a bad
// credential) with a JSON-RPC error body, so clients that read the body get
// JSON rather than plain text; the status (401) and WWW-Authenticate header
// are what MCP clients act on.
func Deny(w http.ResponseWriter, status int, message string) {
	writeRPCError(w, status, -32001, message)
}

func writeRPCError(w http.ResponseWriter, status, code int, message string) {
	writeRPCErrorID(w, status, nil, code, message)
}
