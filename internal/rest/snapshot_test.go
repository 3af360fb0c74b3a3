package rest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite __openapi__/openapi.json from the document the server builds")

// snapshotPath is the checked-in OpenAPI document: the wire format a
// client codes against, reviewed as a diff when it changes.
var snapshotPath = filepath.Join("__openapi__", "openapi.json")

// TestOpenAPISnapshot pins the served OpenAPI document to a checked-in
// copy. The other tests validate every exchange against the document the
// server builds from the same Go types that produce the answers, so a
// renamed JSON tag changes both sides at once and they still agree; only
// a copy kept outside the build notices that the wire format moved.
// Mutation that used to pass: renaming the tag `json:"code"` to
// `json:"error_code"` in problem.go.
// Run `go test ./internal/rest -run TestOpenAPISnapshot -update` to
// accept a deliberate change.
func TestOpenAPISnapshot(t *testing.T) {
	e := newEnv(t, "sqlite")
	resp, err := http.Get(e.url + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json: %d %v", resp.StatusCode, err)
	}
	got := canonicalJSON(t, raw)
	if *update {
		if err := os.MkdirAll(filepath.Dir(snapshotPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(snapshotPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(snapshotPath)
	if err != nil {
		t.Fatalf("no snapshot of the OpenAPI document (%v); run `go test ./internal/rest -run TestOpenAPISnapshot -update` to write it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the OpenAPI document the server builds differs from %s, so the API's wire format changed:\n%s\n"+
			"If the change is deliberate (and clients can live with it), run `go test ./internal/rest -run TestOpenAPISnapshot -update` and commit the new snapshot.",
			snapshotPath, firstDifference(want, got))
	}
}

// canonicalJSON pretty-prints a document with every object's keys sorted
// and without HTML escaping, so the snapshot is stable and reads as the
// document does.
func canonicalJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers stay as written
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // maps marshal with sorted keys
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// firstDifference shows the lines around the first line where got leaves
// want, each side numbered, so the failure names the change without
// printing the whole document.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	from := max(0, i-3)
	var b strings.Builder
	for _, side := range []struct {
		name  string
		lines []string
	}{{"snapshot", w}, {"served", g}} {
		fmt.Fprintf(&b, "%s, from line %d:\n", side.name, from+1)
		for j := from; j < min(len(side.lines), i+4); j++ {
			mark := " "
			if j == i {
				mark = ">"
			}
			fmt.Fprintf(&b, "%s %5d %s\n", mark, j+1, side.lines[j])
		}
	}
	return b.String()
}
