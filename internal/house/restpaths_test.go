package house

// The same for the REST API: every /api/v1 path a message or page names
// (a route pattern, a concrete path, or a format string's) is a route of
// the OpenAPI document the server serves, as its checked-in snapshot
// holds it.

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// apiPath is a path below /api/v1 as text names it.
var apiPath = regexp.MustCompile(`/api/v1((?:/[A-Za-z0-9_{}.:%-]+)*)(/?)`)

func TestEveryRESTPathNamedIsARoute(t *testing.T) {
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	b, err := os.ReadFile(filepath.Join(root, "internal", "rest", "__openapi__", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Paths) < 20 {
		t.Fatalf("the OpenAPI snapshot: %d paths, %v", len(doc.Paths), err)
	}
	var routes [][]string
	for p := range doc.Paths {
		routes = append(routes, strings.Split(strings.TrimPrefix(p, "/"), "/"))
	}

	texts := map[string]string{}
	for _, dir := range []string{"internal", "functions"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			texts[path] = strings.Join(goStrings(t, path), "\n")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, page := range append(pages, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		texts[page] = string(b)
	}

	checked := 0
	for file, text := range texts {
		for _, m := range apiPath.FindAllStringSubmatch(text, -1) {
			path := strings.TrimRight(m[1], ".:")
			if path == "" {
				continue
			}
			segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
			// A path followed by a slash, or cut at an unclosed brace
			// ({proxy+}), is the start of one.
			prefix := m[2] == "/" || strings.Count(path, "{") != strings.Count(path, "}")
			if prefix && strings.HasPrefix(segs[len(segs)-1], "{") && !strings.HasSuffix(segs[len(segs)-1], "}") {
				segs = segs[:len(segs)-1]
			}
			checked++
			if !matchesRoute(routes, segs, prefix) {
				rel, _ := filepath.Rel(root, file)
				t.Errorf("%s names /api/v1%s, which is no route of the REST API", rel, path)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d paths found: the scan is broken", checked)
	}
}

// matchesRoute says whether segs is a route (or, with prefix, the start of
// one): a segment that is a {parameter} or holds a format verb matches any.
func matchesRoute(routes [][]string, segs []string, prefix bool) bool {
	for _, r := range routes {
		if len(r) < len(segs) || (!prefix && len(r) != len(segs)) {
			continue
		}
		ok := true
		for i, s := range segs {
			param := strings.HasPrefix(r[i], "{")
			wild := (strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}")) || strings.Contains(s, "%")
			if s != r[i] && !(param && !strings.ContainsAny(s, "{}") || wild && param) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
