package mcpserver_test

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestDocsAllowExactlyTheReadTools: the Claude Code permission settings
// docs/claude-code.md shows allow every read-only tool and no other, so
// following the documentation never lets a write through unasked, and a new
// read tool is added there too.
func TestDocsAllowExactlyTheReadTools(t *testing.T) {
	readme, err := os.ReadFile("../../docs/claude-code.md")
	if err != nil {
		t.Fatal(err)
	}
	var allowed []string
	for _, m := range regexp.MustCompile(`"mcp__ticket-ledger__([a-z_]+)"`).FindAllSubmatch(readme, -1) {
		allowed = append(allowed, string(m[1]))
	}
	e := newEnv(t, envOptions{})
	var readOnly []string
	for _, tool := range listTools(t, connect(t, e.URL, legacyVersion, nil)) {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			readOnly = append(readOnly, tool.Name)
		}
	}
	slices.Sort(allowed)
	slices.Sort(readOnly)
	if len(readOnly) == 0 || !slices.Equal(allowed, readOnly) {
		t.Fatalf("docs/claude-code.md allows %v; the read-only tools are %v", allowed, readOnly)
	}
}
