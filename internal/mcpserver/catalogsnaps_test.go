package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResourceTemplateSnaps and TestPromptSnaps keep resources/templates/list
// and prompts/list as golden snapshots, one file per entry, as TestToolsnaps
// does for tools: a changed name, description or argument is a deliberate
// diff. `go test ./internal/mcpserver -run Snaps -update-toolsnaps` accepts
// one.
func TestResourceTemplateSnaps(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := connect(t, e.URL, modernVersion, nil)
	res, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]any{}
	for _, rt := range res.ResourceTemplates {
		entries[rt.Name] = rt
	}
	checkSnaps(t, "__resourcesnaps__", entries, []string{"ticket", "workspace"})
}

func TestPromptSnaps(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := connect(t, e.URL, legacyVersion, nil)
	res, err := cs.ListPrompts(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]any{}
	for _, p := range res.Prompts {
		entries[p.Name] = p
	}
	checkSnaps(t, "__promptsnaps__", entries, []string{"standup", "triage"})
}

// checkSnaps compares each entry with dir/<name>.snap (or rewrites them
// under -update-toolsnaps), checks the set of names, and fails on a
// snapshot left without its entry.
func checkSnaps(t *testing.T, dir string, entries map[string]any, names []string) {
	t.Helper()
	if len(entries) != len(names) {
		t.Errorf("%d entries listed, want %v", len(entries), names)
	}
	for _, name := range names {
		entry, ok := entries[name]
		if !ok {
			t.Errorf("%s is not listed", name)
			continue
		}
		got, err := json.MarshalIndent(entry, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, name+".snap")
		if *updateToolsnaps {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s has no snapshot (%v); run with -update-toolsnaps if it is new", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s changed from its snapshot %s; if deliberate, run with -update-toolsnaps.\ngot:\n%s", name, path, got)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
	for _, f := range files {
		if _, ok := entries[strings.TrimSuffix(filepath.Base(f), ".snap")]; !ok && !*updateToolsnaps {
			t.Errorf("snapshot %s has no entry any more; delete it if that is deliberate", f)
		}
	}
}
