package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// boardPackages are what only the web board links: its package, the
// template engine whose method retention keeps every exported method of
// every type converted to an interface, and the Markdown renderer.
var boardPackages = []string{"github.com/ticket-ledger/ticket-ledger/internal/web", "html/template", "github.com/yuin/goldmark"}

// The agents' function is built without the board: with the Makefile's own
// AGENTS_BUILD tags none of the board's packages is linked, and with its
// LAMBDA_BUILD tags (the board's function) all of them are, so the check
// is not passing for want of a board; sam build's targets use them.
func TestLambdaAgentsBuildHasNoBoard(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		variable, function string
		board              bool
	}{{"AGENTS_BUILD", agentsResource, false}, {"LAMBDA_BUILD", webResource, true}} {
		// sam build runs build-<function>, which must build with these tags.
		target := regexp.MustCompile(`\nbuild-` + c.function + `:\n\tGOOS=linux GOARCH=\$\(LAMBDA_GOARCH\) \$\(` + c.variable + `\) -o \$\(ARTIFACTS_DIR\)/bootstrap \./functions/mcp\n`)
		if !target.Match(mk) {
			t.Errorf("the Makefile's build-%s does not build ./functions/mcp with $(%s)", c.function, c.variable)
		}
		tags := lambdatest.MakefileVarTags(mk, c.variable)
		if tags == "" {
			t.Fatalf("the Makefile has no %s line with -tags", c.variable)
		}
		cmd := exec.Command("go", "list", "-deps", "-tags", tags, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps -tags %s: %v", tags, err)
		}
		deps := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			deps[p] = true
		}
		for _, p := range boardPackages {
			if deps[p] != c.board {
				t.Errorf("%s (-tags %s) links %s: %v, want %v", c.variable, tags, p, deps[p], c.board)
			}
		}
	}
}
