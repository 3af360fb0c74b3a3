package board_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"testing"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

var tagRe = regexp.MustCompile(`^[a-z0-9._-]{1,32}$`)

// FuzzDecodeAndValidate feeds arbitrary argument bytes through the decoding
// and validation every surface uses. Whatever it accepts must satisfy the
// limits (docs/architecture.md, "Data") checked independently here, and the
// same arguments with their keys in another order (at every depth) must
// decode, validate and fingerprint the same. `make test` runs the seeds;
// `go test -fuzz FuzzDecodeAndValidate ./internal/board` explores.
func FuzzDecodeAndValidate(f *testing.F) {
	for _, seed := range []string{
		`{"request_id":"r1","workspace":"inbox","title":"Fix the build"}`,
		`{"request_id":"r1","workspace":"inbox","title":"T","body":"**md**","priority":"urgent","owner":"ai:claude","due":"2026-12-24","tags":["a","b.c"],"links":[{"kind":"url","ref":"https://x.test/a","title":"A"}]}`,
		`{"request_id":"r1","workspace":"inbox","title":"\u0000"}`,
		`{"request_id":"r1","workspace":"inbox","title":"ok","tags":["a","a"]}`,
		`{"request_id":"r1","workspace":"In-box","title":"ok"}`,
		`{"request_id":"r1","workspace":"inbox","title":"ok","due":"2026-02-29"}`,
		`{"request_id":"r1","workspace":"inbox","title":"ok","owner":"ai:"}`,
		`{"request_id":"r1","id":"inbox-1","owner":null,"due":null}`,
		`{"request_id":"r1","id":"inbox-1","tags":null,"links":null,"body":null}`,
		`{"links":[{"title":"T","ref":"https://x.test","kind":"url"}],"title":"t","workspace":"inbox","request_id":"r"}`,
		`{"request_id":"r1","id":"inbox-1","status":"done"}`,
		`{"request_id":"r1","id":"inbox-0","title":"x"}`,
		`{"title":"\ud800"}`,
		`[]`, `null`, `{"tags":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var create board.CreateTicketInput
		if decodeStrict(data, &create) == nil && create.Validate() == nil {
			checkCreate(t, create)
			checkKeyOrder(t, data, create, func(b []byte) (any, error) {
				var again board.CreateTicketInput
				if err := decodeStrict(b, &again); err != nil {
					return nil, err
				}
				return again, again.Validate()
			})
		}
		var update board.UpdateTicketInput
		if decodeStrict(data, &update) == nil && update.Validate() == nil {
			if update.Status != nil {
				t.Fatalf("update with status accepted")
			}
			if update.Title != nil && (*update.Title == "" || utf8.RuneCountInString(*update.Title) > board.MaxTitle) {
				t.Fatalf("bad update title accepted: %q", *update.Title)
			}
			checkKeyOrder(t, data, update, func(b []byte) (any, error) {
				var again board.UpdateTicketInput
				if err := decodeStrict(b, &again); err != nil {
					return nil, err
				}
				return again, again.Validate()
			})
		}
	})
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func checkCreate(t *testing.T, in board.CreateTicketInput) {
	t.Helper()
	n := utf8.RuneCountInString(in.Title)
	if n < 1 || n > board.MaxTitle || !utf8.ValidString(in.Title) {
		t.Fatalf("title accepted with %d runes / invalid UTF-8: %q", n, in.Title)
	}
	if utf8.RuneCountInString(in.Body) > board.MaxBody || !utf8.ValidString(in.Body) {
		t.Fatalf("body accepted past the limit")
	}
	if len(in.Tags) > board.MaxTags || len(in.Links) > board.MaxLinks {
		t.Fatalf("too many tags or links accepted")
	}
	for _, tag := range in.Tags {
		if !tagRe.MatchString(tag) {
			t.Fatalf("tag %q accepted", tag)
		}
	}
	for _, l := range in.Links {
		if l.Kind != "article" && l.Kind != "task" && l.Kind != "url" || l.Ref == "" {
			t.Fatalf("link %+v accepted", l)
		}
	}
	if in.Priority == "" {
		t.Fatalf("priority default not filled")
	}
}

// checkKeyOrder writes the accepted arguments again with every object's
// keys in reverse order, decodes and validates them as a surface would, and
// expects the same fingerprint as the original order gave: what a client
// sends in any key order is one call.
func checkKeyOrder(t *testing.T, data []byte, accepted any, decode func([]byte) (any, error)) {
	t.Helper()
	reordered, err := reverseKeys(data)
	if err != nil {
		t.Fatalf("accepted arguments that are not one JSON value: %v", err)
	}
	again, err := decode(reordered)
	if err != nil {
		t.Fatalf("accepted %s but refused the same with keys reordered, %s: %v", data, reordered, err)
	}
	a, err := ledger.CanonicalArgs(accepted)
	if err != nil {
		t.Fatalf("canonical: %v", err)
	}
	b, err := ledger.CanonicalArgs(again)
	if err != nil {
		t.Fatalf("canonical of the reordered: %v", err)
	}
	if ledger.Fingerprint(a) != ledger.Fingerprint(b) {
		t.Fatalf("key order changed the fingerprint:\n%s -> %s\n%s -> %s", data, a, reordered, b)
	}
	if bytes.Contains(a, []byte("request_id")) {
		t.Fatalf("request_id is part of the fingerprint: %s", a)
	}
}

// reverseKeys re-encodes one JSON value with each object's keys in
// descending order (encoding/json and the canonical form use ascending),
// numbers and strings unchanged.
func reverseKeys(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeReversed(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeReversed(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			if err := writeReversed(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeReversed(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}
