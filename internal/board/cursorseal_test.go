package board

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// A sealed cursor opens only under the key and for the kind of list it was
// sealed for; any change to it, a payload made up by a caller, or a cursor
// of a server with another key is refused.
func TestCursorSealRefusesWhatItDidNotSeal(t *testing.T) {
	p := feedCursor{At: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), ID: "ev-1", Filter: "f"}
	c := testSeal.seal(cursorFeed, p)
	var got feedCursor
	if !testSeal.open(cursorFeed, c, &got) || got != p {
		t.Fatalf("round trip: %+v", got)
	}
	body, tag, _ := strings.Cut(c, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	altered := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "ev-1", "ev-2", 1))) + "." + tag
	other := &cursorSeal{key: []byte("another server's key, as long as one")}
	for name, bad := range map[string]string{
		"altered payload":  altered,
		"no tag":           body,
		"altered tag":      body + "." + strings.Repeat("A", len(tag)),
		"another key":      other.seal(cursorFeed, p),
		"another list":     testSeal.seal(cursorNotes, p),
		"not base64":       "!!." + tag,
		"empty":            "",
		"unsealed payload": base64.RawURLEncoding.EncodeToString(raw),
	} {
		if testSeal.open(cursorFeed, bad, &got) {
			t.Errorf("%s: opened", name)
		}
	}
}

// A forged cursor is invalid and the error says to start again without one.
func TestForgedFeedCursorSaysToStartAgain(t *testing.T) {
	forged := base64.RawURLEncoding.EncodeToString([]byte(`{"a":"2026-12-01T00:00:00Z","i":"ev-1","f":"x"}`))
	_, err := decodeFeedCursor(testSeal, forged, "x")
	e, ok := err.(*Error)
	if !ok || e.Code != CodeInvalid || !strings.Contains(e.Message, "omit cursor to start again") {
		t.Fatalf("forged cursor: %v", err)
	}
}
