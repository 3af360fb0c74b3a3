package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// JSON-RPC error codes for messages the server cannot take.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// maxNesting is the deepest JSON the server reads. The SDK's decoder
// refuses more than 1000 levels; saying so here lets the refusal be a
// JSON-RPC error like every other.
const maxNesting = 1000

// checkJSONRPC answers a POST body that is not one well-formed JSON-RPC 2.0
// message with a JSON-RPC error object and HTTP 400, on every protocol
// revision: -32700 when it is not JSON (or nests deeper than maxNesting),
// -32600 when it is JSON but not a message this server takes (a batch, a
// bare value, another jsonrpc version, a null or non-integer id, a method
// that is not a string, neither method nor result). Left alone, the SDK
// refuses these with plain-text bodies no client can read as JSON-RPC. The
// body was buffered by requireUTF8. What passes goes on unchanged.
func checkJSONRPC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		if code, id, msg := malformed(bodyBytes(r)); code != 0 {
			writeRPCErrorID(w, http.StatusBadRequest, id, code, msg+"; nothing was done. Send one JSON-RPC 2.0 request object per POST")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// malformed classifies a body: code 0 when it is one JSON-RPC message the
// SDK may take; otherwise the error's code, the request id when one could
// be read (else JSON null), and the reason. It runs on every POST, so it
// reads the body in place: it checks the JSON, then walks the top level
// of the object for the few members it judges, without decoding the rest.
func malformed(body []byte) (code int, id json.RawMessage, msg string) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return codeParseError, nil, "parse error: the request body is empty"
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		if err == nil {
			err = fmt.Errorf("more than one JSON value")
		}
		return codeParseError, nil, fmt.Sprintf("parse error: the body is not one JSON value (%v)", err)
	}
	if depth := nesting(trimmed); depth > maxNesting {
		return codeParseError, nil, fmt.Sprintf("parse error: the JSON nests %d levels deep; at most %d are read", depth, maxNesting)
	}
	switch trimmed[0] {
	case '[':
		return codeInvalidRequest, nil, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 and later)"
	case '{':
	default:
		return codeInvalidRequest, nil, "invalid request: a JSON-RPC message is an object"
	}
	m := topLevel(trimmed)
	if m.id != nil && validID(m.id) {
		id = m.id
	}
	if v := string(m.jsonrpc); v != `"2.0"` {
		if v == "" {
			v = "missing"
		}
		return codeInvalidRequest, id, fmt.Sprintf(`invalid request: "jsonrpc" must be "2.0", not %s`, v)
	}
	if m.id != nil && !validID(m.id) {
		return codeInvalidRequest, nil, fmt.Sprintf("invalid request: id must be a string or an integer, not %s", clipRaw(m.id))
	}
	if m.method != nil {
		// What decoding into a string accepts: a string, or null.
		if m.method[0] != '"' && string(m.method) != "null" {
			return codeInvalidRequest, id, fmt.Sprintf("invalid request: method must be a string, not %s", clipRaw(m.method))
		}
		return 0, nil, ""
	}
	if !m.hasResult && !m.hasError {
		return codeInvalidRequest, id, "invalid request: the message has neither a method nor a result or error"
	}
	return 0, nil, "" // a response to a request of the server's
}

// members are the top-level members of a JSON-RPC message that the checks
// read: the raw values (nil when absent) and whether result or error is
// there. Of a key given twice the last counts, as when decoding into a map.
type members struct {
	jsonrpc, id, method json.RawMessage
	hasResult, hasError bool
}

// topLevel reads the members of obj, a valid JSON object, comparing keys
// exactly (after unescaping) as decoding into a map does.
func topLevel(obj []byte) members {
	var m members
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		keyEnd := skipValue(obj, i)
		key := obj[i:keyEnd]
		i = skipSpace(obj, keyEnd)
		i = skipSpace(obj, i+1) // the colon
		valueEnd := skipValue(obj, i)
		value := obj[i:valueEnd]
		switch unquote(key) {
		case "jsonrpc":
			m.jsonrpc = value
		case "id":
			m.id = value
		case "method":
			m.method = value
		case "result":
			m.hasResult = true
		case "error":
			m.hasError = true
		}
		i = skipSpace(obj, valueEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return m
}

// unquote is the text of a JSON string token; an escaped one is decoded.
func unquote(tok []byte) string {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return s
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// validID: a JSON-RPC id MCP accepts, a string or an integer.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return false // null, true, false, an object or an array
	}
	// A JSON number (raw comes from valid JSON) that is an integer within
	// int64, as json.Number.Int64 decides.
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// nesting is the deepest level of arrays and objects in valid JSON.
func nesting(data []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

func clipRaw(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// writeRPCErrorID answers a JSON-RPC error for the request id given (JSON
// null when it could not be read).
func writeRPCErrorID(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
