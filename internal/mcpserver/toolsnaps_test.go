package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var updateToolsnaps = flag.Bool("update-toolsnaps", false, "rewrite __toolsnaps__, __resourcesnaps__ and __promptsnaps__ from the current tools/list, resources/templates/list and prompts/list")

// TestToolsnaps keeps one snapshot per tool of what tools/list says, so a
// change to a name, description, annotation or schema is a deliberate diff.
// Run `go test ./internal/mcpserver -run Toolsnaps -update-toolsnaps` to accept one.
func TestToolsnaps(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := connect(t, e.URL, legacyVersion, nil)
	tools := listTools(t, cs)
	dir := "__toolsnaps__"
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, tool.Name+".snap")
		if *updateToolsnaps {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s has no snapshot (%v); run with -update-toolsnaps if the tool is new", tool.Name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s changed from its snapshot %s; if deliberate, run with -update-toolsnaps.\ngot:\n%s", tool.Name, path, got)
		}
	}
	// A snapshot without a tool means a tool disappeared.
	files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
	for _, f := range files {
		name := filepath.Base(f)
		name = name[:len(name)-len(".snap")]
		if !slices.Contains(names, name) && !*updateToolsnaps {
			t.Errorf("snapshot %s has no tool any more; delete it if that is deliberate", f)
		}
	}
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}
