package ledger_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// canonicalArgsAsFirstWritten is CanonicalArgs as the first release computed
// it (five passes of encoding/json). Fingerprints of records written then are
// still in stores and must keep matching retries, so the faster CanonicalArgs
// must give the same bytes for every input.
func canonicalArgsAsFirstWritten(args any) ([]byte, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "request_id")
	raw, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// argsLike has the shapes write tools take: strings, pointers, numbers,
// lists of strings and of objects, omitted empties.
type argsLike struct {
	RequestID string            `json:"request_id"`
	Title     string            `json:"title"`
	Body      *string           `json:"body,omitempty"`
	Limit     int               `json:"limit,omitempty"`
	Tags      []string          `json:"tags,omitempty"`
	Links     []map[string]any  `json:"links,omitempty"`
	Extra     map[string]string `json:"extra,omitempty"`
}

func TestCanonicalArgsUnchanged(t *testing.T) {
	body := "<b>&amp;</b> \u2028 \u2029 \x00 \x1f \\ \" é 𝄞 \t\n\r\b\f \x7f \xff"
	cases := []any{
		argsLike{RequestID: "r", Title: "T"},
		argsLike{RequestID: "r", Title: body, Body: &body, Limit: -7, Tags: []string{"b", "a", "<x>"},
			Links: []map[string]any{{"ref": "z", "kind": "url", "n": 1.5e300}, {}}, Extra: map[string]string{"é": "1", "e": "2", "E": "3"}},
		map[string]any{"request_id": "r", "nested": map[string]any{"request_id": "kept", "b": []any{nil, true, false, 0, -0.5}}},
		map[string]any{},
		json.RawMessage(`{"request_id":"x","n":1.000,"m":-0,"big":123456789012345678901234567890,"e":1E+2}`),
	}
	for i, c := range cases {
		want, werr := canonicalArgsAsFirstWritten(c)
		got, gerr := ledger.CanonicalArgs(c)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Errorf("case %d: got %s (%v), first release %s (%v)", i, got, gerr, want, werr)
		}
	}
	for _, notObject := range []any{"text", 1, []string{"a"}, nil} {
		if _, err := ledger.CanonicalArgs(notObject); err == nil {
			t.Errorf("%v: accepted as arguments", notObject)
		}
	}
}

// FuzzCanonicalArgs: for any JSON object, the same bytes as the first
// release.
func FuzzCanonicalArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"request_id":"a","title":"<&>"}`, `{"b":[1,2.50,{"z":null,"a":"\u2028"}],"a":"\ud800"}`,
		`{"x":"\u0000\u001f\u007f","y":"` + strings.Repeat("é", 10) + `"}`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || !strings.HasPrefix(strings.TrimSpace(s), "{") {
			return
		}
		raw := json.RawMessage(s)
		want, werr := canonicalArgsAsFirstWritten(raw)
		got, gerr := ledger.CanonicalArgs(raw)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s (%v), first release %s (%v)", s, got, gerr, want, werr)
		}
	})
}
