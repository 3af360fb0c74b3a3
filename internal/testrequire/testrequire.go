// Package testrequire is the one switch that decides what a test does when
// something it needs is missing (a moto endpoint, a browser, caddy, the
// Lambda runtime emulator, the Step Functions interpreter): plain `go test`
// skips it with the reason, so the suite needs nothing installed, and
// `make test` sets LEDGER_TEST_REQUIRE=1, where the same test fails, so a
// suite that quietly left something out never passes there. Tests only:
// nothing outside a _test.go file and the test helpers imports it.
package testrequire

import (
	"fmt"
	"os"
	"os/exec"
)

// T is what Missing needs of a test: testing.TB has it, and so has a
// benchmark program's stand-in.
type T interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Env names the switch; any value but empty or "0" turns it on.
const Env = "LEDGER_TEST_REQUIRE"

// On reports whether missing prerequisites fail tests.
func On() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Missing stops t for want of what the message names: a failure under
// the switch, a skip with the reason otherwise. how says how to get it.
func Missing(t T, how string, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if On() {
		t.Fatalf("%s (%s is set: this test must run; %s)", msg, Env, how)
	}
	t.Skipf("%s; %s", msg, how)
}

// browsers are where Debian's headless Chromium is found, first the
// package's own name (never a browser a test tool downloads).
var browsers = []string{"chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell", "chromium"}

// Browser is the path of Debian's chromium-headless-shell for the browser
// tests (chromedp drives it), or Missing.
func Browser(t T) string {
	t.Helper()
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, "scripts/prereqs.sh installs it; make test runs that first", "chromium-headless-shell is not installed")
	return ""
}
