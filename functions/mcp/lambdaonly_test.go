package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
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
	bootstrap := t.TempDir() + "/bootstrap"
	if err := lambdatest.Build(ctx, ".", bootstrap, "", ""); err != nil {
		t.Fatal(err)
	}
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
