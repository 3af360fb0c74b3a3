package board_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

var tagRe = regexp.MustCompile(`^[a-z0-9._-]{1,32}$`)

// FuzzDecodeAndValidate feeds arbitrary argument bytes through the decoding
// and validation every surface uses. Whatever it accepts must satisfy the
// limits of DESIGN §2 checked independently here, and its fingerprint must
// not depend on key order. `make test` runs the seeds; `go test -fuzz
// FuzzDecodeAndValidate ./internal/board` explores.
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
			checkFingerprintStable(t, create)
		}
		var update board.UpdateTicketInput
		if decodeStrict(data, &update) == nil && update.Validate() == nil {
			if update.Status != nil {
				t.Fatalf("update with status accepted")
			}
			if update.Title != nil && (*update.Title == "" || utf8.RuneCountInString(*update.Title) > board.MaxTitle) {
				t.Fatalf("bad update title accepted: %q", *update.Title)
			}
			checkFingerprintStable(t, update)
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

// checkFingerprintStable re-encodes the arguments with keys in another order
// and expects the same fingerprint: the canonical form ignores key order.
func checkFingerprintStable(t *testing.T, v any) {
	t.Helper()
	a, err := ledger.CanonicalArgs(v)
	if err != nil {
		t.Fatalf("canonical: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(a, &m); err != nil {
		t.Fatalf("canonical form is not JSON: %s", a)
	}
	b, err := ledger.CanonicalArgs(m)
	if err != nil || ledger.Fingerprint(a) != ledger.Fingerprint(b) {
		t.Fatalf("fingerprint changed on re-encoding: %s vs %s", a, b)
	}
	if bytes.Contains(a, []byte("request_id")) {
		t.Fatalf("request_id is part of the fingerprint: %s", a)
	}
}
