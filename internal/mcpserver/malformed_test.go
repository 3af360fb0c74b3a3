package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// malformedByDecoding is malformed as first written: the body decoded into a
// map of its members. malformed now walks the members in place (it runs on
// every POST); it must judge every body the same way.
func malformedByDecoding(body []byte) (code int, id json.RawMessage) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || !json.Valid(trimmed) || nesting(trimmed) > maxNesting {
		return codeParseError, nil
	}
	if trimmed[0] != '{' {
		return codeInvalidRequest, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return codeInvalidRequest, nil
	}
	rawID, hasID := m["id"]
	validIDByDecoding := func(raw json.RawMessage) bool {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			return false
		}
		if raw[0] == '"' {
			var s string
			return json.Unmarshal(raw, &s) == nil
		}
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	if hasID && validIDByDecoding(rawID) {
		id = rawID
	}
	if string(bytes.TrimSpace(m["jsonrpc"])) != `"2.0"` {
		return codeInvalidRequest, id
	}
	if hasID && !validIDByDecoding(rawID) {
		return codeInvalidRequest, nil
	}
	if method, ok := m["method"]; ok {
		var name string
		if json.Unmarshal(method, &name) != nil {
			return codeInvalidRequest, id
		}
		return 0, nil
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasResult && !hasError {
		return codeInvalidRequest, id
	}
	return 0, nil
}

var malformedSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"id":"inner","method":5}}}`,
	` {"jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "tools/list" } `,
	`{"jsonrpc":"2.0","id":1,"id":null,"method":"m"}`,
	`{"jsonrpc":"1.0","jsonrpc":"2.0","id":-0,"method":"m"}`,
	`{"\u006a\u0073\u006f\u006e\u0072\u0070\u0063":"2.0","\u0069d":7,"method":"m"}`,
	`{"JSONRPC":"2.0","ID":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"m"}`,
	`{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
	`{"jsonrpc":"2.0","id":true,"method":null}`,
	`{"jsonrpc":"2.0","id":[1],"result":{}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":1}}`,
	`{"jsonrpc":"2.0","id":3}`,
	`{"jsonrpc":"2.0","method":{"a":"}"}}`,
	`{"jsonrpc":"2.0" ,"id":"\ud800","method":"x"}`,
	`{}`, `[]`, `[{}]`, `1`, `"x"`, `null`, ``, `{`, `{"a":1}{"b":2}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
}

func TestMalformedJudgesAsDecoding(t *testing.T) {
	for _, s := range malformedSeeds {
		code, id, _ := malformed([]byte(s))
		wantCode, wantID := malformedByDecoding([]byte(s))
		if code != wantCode || !bytes.Equal(id, wantID) {
			t.Errorf("%q: code %d id %s, decoding says code %d id %s", s, code, id, wantCode, wantID)
		}
	}
}

func FuzzMalformed(f *testing.F) {
	for _, s := range malformedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, id, _ := malformed([]byte(s))
		wantCode, wantID := malformedByDecoding([]byte(s))
		if code != wantCode || !bytes.Equal(id, wantID) {
			t.Fatalf("%q: code %d id %s, decoding says code %d id %s", s, code, id, wantCode, wantID)
		}
	})
}
