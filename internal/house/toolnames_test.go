package house

// Messages and documentation send callers to tools by name ("call
// find_request, then retry", "remove one with unrelate_tickets"): a name
// that is no tool, or no longer one, sends them nowhere. Every word that
// looks like a tool's name (a tool's verb, an underscore, more) in a
// string of the code, in docs/ or in README must be a tool of the MCP
// server (its __toolsnaps__) or an argument or field of one.

import (
	"encoding/json"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// notToolNames are words of that shape that name something else, each
// with what it names.
var notToolNames = map[string]string{
	"claim_by":         "a claim's column and attribute",
	"claim_for":        "a claim's column and attribute",
	"claim_since":      "a claim's column and attribute",
	"claim_until":      "a claim's column and attribute",
	"create_workspace": "the request record of a REST or board write",
	"update_workspace": "the request record of a REST or board write",
	"create_webhook":   "the request record of a REST or board write",
	"import_board":     "the admin command's mark in the store",
	"add_item":         "an earlier name, in the table of renames",
}

// toolShaped is a word of snake_case letters.
var toolShaped = regexp.MustCompile(`^[a-z]+(_[a-z]+)+$`)

// wordSplit cuts text into words, keeping dotted, slashed and called names
// whole so that they do not look like bare names.
var wordSplit = regexp.MustCompile(`[^A-Za-z0-9_./#(-]+`)

func TestEveryToolANameSendsToIsATool(t *testing.T) {
	tools, fields := toolsAndFields(t)
	verbs := map[string]bool{}
	for name := range tools {
		verb, _, _ := strings.Cut(name, "_")
		verbs[verb] = true
	}
	texts := map[string][]string{} // file → its strings
	for _, dir := range []string{"internal", "functions"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			texts[path] = goStrings(t, path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	snaps, _ := filepath.Glob(filepath.Join(root, "internal", "mcpserver", "__toolsnaps__", "*.snap"))
	for _, page := range append(append(pages, filepath.Join(root, "README.md")), snaps...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		texts[page] = []string{string(b)}
	}
	checked := 0
	for file, strs := range texts {
		for _, s := range strs {
			for _, w := range wordSplit.Split(s, -1) {
				w = strings.TrimRight(w, ".")
				if !toolShaped.MatchString(w) {
					continue
				}
				verb, _, _ := strings.Cut(w, "_")
				if !verbs[verb] {
					continue
				}
				checked++
				if !tools[w] && !fields[w] && notToolNames[w] == "" {
					rel, _ := filepath.Rel(root, file)
					t.Errorf("%s names %q, which is no tool and no argument or field of one", rel, w)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d tool-shaped words found: the scan is broken", checked)
	}
}

// toolsAndFields reads the tools' snapshots: their names, and every
// property name of their input and output schemas.
func toolsAndFields(t *testing.T) (tools, fields map[string]bool) {
	t.Helper()
	snaps, err := filepath.Glob(filepath.Join(root, "internal", "mcpserver", "__toolsnaps__", "*.snap"))
	if err != nil || len(snaps) < 20 {
		t.Fatalf("the tool snapshots: %d, %v", len(snaps), err)
	}
	tools, fields = map[string]bool{}, map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if props, ok := sub.(map[string]any); ok && k == "properties" {
					for name := range props {
						fields[name] = true
					}
				}
				walk(sub)
			}
		case []any:
			for _, sub := range v {
				walk(sub)
			}
		}
	}
	for _, snap := range snaps {
		b, err := os.ReadFile(snap)
		if err != nil {
			t.Fatal(err)
		}
		var tool map[string]any
		if err := json.Unmarshal(b, &tool); err != nil {
			t.Fatalf("%s: %v", snap, err)
		}
		tools[strings.TrimSuffix(filepath.Base(snap), ".snap")] = true
		walk(tool)
	}
	return tools, fields
}

// goStrings is every string literal of a Go file.
func goStrings(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.STRING {
			out = append(out, lit)
		}
	}
}
