package house

// `make test` on a fresh machine must either get what it needs or say at
// once what to run: scripts/prereqs.sh is that check, and .ci/run and the
// Makefile both call it, so CI cannot install something the documented
// command does not know about.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
)

const prereqsScript = "scripts/prereqs.sh"

func TestCIAndMakeTestInstallThroughOneScript(t *testing.T) {
	ci := readRepoFile(t, ".ci/run")
	if !strings.Contains(ci, prereqsScript) {
		t.Errorf(".ci/run does not call %s", prereqsScript)
	}
	for _, own := range []string{"apt-get", "go install", "npm install"} {
		if strings.Contains(ci, own) {
			t.Errorf(".ci/run installs on its own (%q): move it into %s so make test does the same", own, prereqsScript)
		}
	}
	mk := readRepoFile(t, "Makefile")
	testTarget := regexp.MustCompile(`(?m)^test:(.*)$`).FindStringSubmatch(mk)
	if testTarget == nil || !strings.HasPrefix(strings.TrimSpace(testTarget[1]), "prereqs") {
		t.Errorf("the Makefile's test target must run prereqs first, got %q", testTarget)
	}
	if !regexp.MustCompile(`(?m)^prereqs:\n\tbash ` + regexp.QuoteMeta(prereqsScript) + `$`).MatchString(mk) {
		t.Errorf("the Makefile's prereqs target must run %s", prereqsScript)
	}
}

func TestPrereqsPinsTheEmulatorTheTestsName(t *testing.T) {
	script := readRepoFile(t, prereqsScript)
	if !strings.Contains(script, "rie_version="+lambdatest.RIEVersion) {
		t.Errorf("%s does not install aws-lambda-rie %s, the version internal/lambdatest names", prereqsScript, lambdatest.RIEVersion)
	}
}

// fakeTools makes a PATH of stand-ins for every tool the script looks for,
// except those named in missing; go answers a GOPATH inside the folder.
func fakeTools(t *testing.T, missing ...string) (path, gopath string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	gopath = filepath.Join(dir, "gopath")
	for _, d := range []string{bin, filepath.Join(gopath, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	skip := map[string]bool{}
	for _, m := range missing {
		skip[m] = true
	}
	stub := func(path, body string) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"node", "npm", "chromium-headless-shell", "caddy", "jq", "moto_server", "cfn-lint"} {
		if !skip[tool] {
			stub(filepath.Join(bin, tool), "exit 0")
		}
	}
	stub(filepath.Join(bin, "go"), `[ "$1 $2" = "env GOPATH" ] && echo `+gopath+`; exit 0`)
	if !skip["aws-lambda-rie"] {
		stub(filepath.Join(gopath, "bin", "aws-lambda-rie"), "exit 0")
	}
	id, err := exec.LookPath("id")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(id, filepath.Join(bin, "id")); err != nil {
		t.Fatal(err)
	}
	return bin, gopath
}

func runPrereqs(t *testing.T, path string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	cmd := exec.Command(bash, append([]string{filepath.Join(root, prereqsScript)}, args...)...)
	cmd.Env = []string{"PATH=" + path, "PREREQS_NOT_ROOT=1", "HOME=" + t.TempDir()}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func TestPrereqsWithoutRootNamesTheOneCommandThatInstalls(t *testing.T) {
	path, _ := fakeTools(t, "caddy", "chromium-headless-shell")
	_, stderr, code := runPrereqs(t, path)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, stderr)
	}
	want := "sudo apt-get install -y chromium-headless-shell caddy"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not name %q", stderr, want)
	}
}

func TestPrereqsPassesWhenEverythingIsThere(t *testing.T) {
	path, _ := fakeTools(t)
	for _, args := range [][]string{nil, {"--check"}} {
		stdout, stderr, code := runPrereqs(t, path, args...)
		if code != 0 {
			t.Errorf("%v: exit %d, stdout %q stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestPrereqsCheckNamesTheMissingEmulator(t *testing.T) {
	path, _ := fakeTools(t, "aws-lambda-rie")
	_, stderr, code := runPrereqs(t, path, "--check")
	if code != 1 || !strings.Contains(stderr, "aws-lambda-rie") {
		t.Errorf("exit %d, stderr %q: want 1 naming aws-lambda-rie", code, stderr)
	}
}

func TestPrereqsNamesToolsItDoesNotInstall(t *testing.T) {
	path, _ := fakeTools(t, "moto_server")
	_, stderr, code := runPrereqs(t, path)
	if code != 1 || !strings.Contains(stderr, "moto_server") {
		t.Errorf("exit %d, stderr %q: want 1 naming moto_server", code, stderr)
	}
}

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
