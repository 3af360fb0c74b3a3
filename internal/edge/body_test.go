package edge

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadBody(t *testing.T) {
	for _, c := range []struct {
		name, body string
		limit      int64
		want       string // "" ok, "large", "utf8"
	}{
		{"at the limit", strings.Repeat("é", 4), 8, ""},
		{"one byte over", strings.Repeat("é", 4) + "x", 8, "large"},
		{"a lone continuation byte", "{\"t\":\"\x80\"}", 64, "utf8"},
		{"a cut 4-byte character", "\xf0\x9f\x98", 64, "utf8"},
		{"empty", "", 64, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(c.body))
			got, err := ReadBody(httptest.NewRecorder(), r, c.limit)
			var tooLarge *BodyTooLargeError
			switch c.want {
			case "":
				if err != nil || string(got) != c.body {
					t.Fatalf("got %q, %v; want the body back", got, err)
				}
			case "large":
				if !errors.As(err, &tooLarge) || tooLarge.Limit != c.limit {
					t.Fatalf("got %v; want BodyTooLargeError{%d}", err, c.limit)
				}
			case "utf8":
				if !errors.Is(err, ErrNotUTF8) {
					t.Fatalf("got %v; want ErrNotUTF8", err)
				}
			}
		})
	}
}
