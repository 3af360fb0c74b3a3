package ledger_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

func TestCanonicalSortsKeysAndKeepsTextAsIs(t *testing.T) {
	got, err := ledger.Canonical(map[string]any{"b": 1, "a": []any{"<x>", "ü"}, "c": map[string]any{"z": true, "y": nil}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":["<x>","ü"],"b":1,"c":{"y":null,"z":true}}`; string(got) != want {
		t.Fatalf("canonical = %s, want %s", got, want)
	}
}

func TestFingerprintIgnoresRequestIDAndKeyOrder(t *testing.T) {
	type args struct {
		RequestID string   `json:"request_id"`
		Title     string   `json:"title"`
		Tags      []string `json:"tags,omitempty"`
	}
	a, _ := ledger.CanonicalArgs(args{RequestID: "one", Title: "T", Tags: []string{"x"}})
	b, _ := ledger.CanonicalArgs(map[string]any{"tags": []string{"x"}, "title": "T", "request_id": "two"})
	if ledger.Fingerprint(a) != ledger.Fingerprint(b) {
		t.Fatalf("%s and %s differ", a, b)
	}
	c, _ := ledger.CanonicalArgs(args{Title: "T"})
	if ledger.Fingerprint(a) == ledger.Fingerprint(c) {
		t.Fatal("different arguments share a fingerprint")
	}
	if len(ledger.Fingerprint(a)) != 64 {
		t.Fatal("fingerprint is not hex SHA-256")
	}
}

func TestDiffFieldsNamesAddedRemovedAndChanged(t *testing.T) {
	got, err := ledger.DiffFields([]byte(`{"a":1,"b":[1,2],"c":"x"}`), []byte(`{"a":1,"b":[2,1],"d":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "b,c,d" {
		t.Fatalf("diff = %v, want b,c,d", got)
	}
}

func TestValidateRequestID(t *testing.T) {
	for _, ok := range []string{"a", "A.b_c:d-9", strings.Repeat("x", 128), "0190f3c2-7b1e-7a55-8f00-1234567890ab"} {
		if err := ledger.ValidateRequestID(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", 129), "a b", "a/b", "é", "a\n"} {
		if err := ledger.ValidateRequestID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRetentionFloor(t *testing.T) {
	if ledger.CheckRetention(59*time.Minute) == nil {
		t.Fatal("retention under an hour accepted")
	}
	if ledger.CheckRetention(time.Hour) != nil || ledger.CheckRetention(ledger.DefaultRetention) != nil {
		t.Fatal("valid retention refused")
	}
	if ledger.DefaultRetention < 24*time.Hour {
		t.Fatal("default retention below 24h")
	}
}

func TestJudgeAndDescribe(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	done := ledger.NewRecord(ledger.Key{Principal: "ai:a", RequestID: "r"}, "create_ticket", []byte(`{"title":"T"}`), now.Add(-time.Hour), 24*time.Hour)
	done.Result = []byte(`{"ok":true}`)
	running := done
	running.Status, running.Result, running.Owner, running.LeaseUntil = ledger.StatusRunning, nil, "w1", now.Add(time.Minute)
	stale := running
	stale.LeaseUntil = now

	if ledger.Judge(done, "create_ticket", done.Fingerprint, now) != ledger.Replay {
		t.Error("same call is not a replay")
	}
	if ledger.Judge(done, "create_ticket", "other", now) != ledger.Mismatch || ledger.Judge(done, "add_note", done.Fingerprint, now) != ledger.Mismatch {
		t.Error("other arguments or tool is not a mismatch")
	}
	if ledger.Judge(running, "create_ticket", done.Fingerprint, now) != ledger.InProgress {
		t.Error("live lease is not in progress")
	}
	if ledger.Judge(stale, "create_ticket", done.Fingerprint, now) != ledger.Abandoned {
		t.Error("expired lease is not abandoned")
	}

	cases := []struct {
		rec  *ledger.Record
		at   time.Time
		want ledger.LookupStatus
	}{
		{nil, now, ledger.LookupUnknown},
		{&done, now, ledger.LookupDone},
		{&done, done.ExpiresAt, ledger.LookupUnknown}, // expiry is logical, at the instant
		{&running, now, ledger.LookupRunning},
		{&stale, now, ledger.LookupAbandoned},
	}
	for i, c := range cases {
		got := ledger.Describe("r", c.rec, c.at)
		if got.Status != c.want {
			t.Errorf("case %d: %s, want %s", i, got.Status, c.want)
		}
		if c.want == ledger.LookupDone && string(got.Result) != `{"ok":true}` {
			t.Errorf("done lookup lacks the result")
		}
	}
	msg := ledger.MismatchMessage(done, "create_ticket", []byte(`{"title":"U"}`))
	if !strings.Contains(msg, "differing fields: title") || !strings.Contains(msg, "nothing was written") {
		t.Errorf("mismatch message: %s", msg)
	}
}

func TestRequestIDMatchesItsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
	for _, id := range []string{"", "a", "a:b.c_d-e", "é", "a b", "a/b", strings.Repeat("z", 128), strings.Repeat("z", 129), "\x00", "Ω"} {
		if got, want := ledger.ValidateRequestID(id) == nil, pattern.MatchString(id); got != want {
			t.Errorf("%q: accepted %v, pattern %v", id, got, want)
		}
	}
}
