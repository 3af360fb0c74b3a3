package lambdatest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/testrequire"
)

// stopRecorder is a TB that notes how it was stopped instead of stopping.
type stopRecorder struct{ skipped, failed string }

func (r *stopRecorder) Helper()                        {}
func (r *stopRecorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }
func (r *stopRecorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

// A build without the emulator tests fails under the switch and names the
// tag that builds them in; a build with them passes.
func TestNeedEmulatorTestsFollowsTheTag(t *testing.T) {
	t.Setenv(testrequire.Env, "1")
	var r stopRecorder
	NeedEmulatorTests(&r)
	if emulatorTests {
		if r.failed != "" || r.skipped != "" {
			t.Fatalf("built with -tags %s: failed %q, skipped %q", EmulatorTag, r.failed, r.skipped)
		}
		return
	}
	if want := "-tags " + EmulatorTag; r.failed == "" || !strings.Contains(r.failed, want) {
		t.Fatalf("built without the tag: failed %q, want a failure naming %q", r.failed, want)
	}
}
