package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// An unknown first word used to start the server; now it prints the
// commands and exits 2 at once, and help lists them. Run with the real
// binary: a server started by mistake would still be running at the
// deadline and be killed, failing the test.
func TestUnknownCommandIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	run := func(args ...string) (string, string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = []string{"LEDGER_DATA=" + t.TempDir(), "LEDGER_ADDR=127.0.0.1:0"}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("%v: still running after 20 s (a server started?)", args)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), errb.String(), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), 0
	}
	for _, args := range [][]string{{"backpu", "x.db"}, {"serve"}, {"--addr", ":80"}} {
		out, errOut, code := run(args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "unknown command") || !strings.Contains(errOut, "backup <file>") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and the commands on stderr", args, code, out, errOut)
		}
	}
	for _, h := range []string{"help", "--help", "-h"} {
		out, _, code := run(h)
		if code != exitOK || !strings.Contains(out, "people <command>") || !strings.Contains(out, "tokens <command>") || !strings.Contains(out, "backup <file>") ||
			!strings.Contains(out, "export ") || !strings.Contains(out, "import-board ") {
			t.Errorf("%s: exit %d, stdout %q; want the commands", h, code, out)
		}
	}
}
