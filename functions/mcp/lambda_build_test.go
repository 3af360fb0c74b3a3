package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

// The Lambda build has no local server: started outside Lambda it says so
// and exits, rather than listening.
func TestLambdaBuildRefusesToServeOutsideLambda(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // the build, on a busy machine
	defer cancel()
	bootstrap := lambdatest.Bootstrap(t, ctx, lambdatest.Build)
	run, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	cmd := exec.CommandContext(run, bootstrap)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envRuntimeAPI+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envStore+"=dynamodb", envAddr+"=127.0.0.1:0")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the Lambda build outside Lambda: %v (want exit status 1)\n%s", err, out)
	}
	if !strings.Contains(string(out), "runs only inside Lambda") || !strings.Contains(string(out), "build without the tag") {
		t.Errorf("output does not say the build serves only in Lambda and what to build instead:\n%s", out)
	}
}

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
