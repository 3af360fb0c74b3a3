package testrequire

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a T that notes what Missing did instead of stopping.
type recorder struct{ skipped, failed string }

func (r *recorder) Helper()                        {}
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

func TestMissingSkipsWithoutTheSwitchAndFailsWithIt(t *testing.T) {
	for _, c := range []struct {
		value string
		fail  bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv(Env, c.value)
		var r recorder
		Missing(&r, "install it", "caddy is not installed")
		got := r.skipped
		if c.fail {
			got = r.failed
		}
		if (r.failed != "") != c.fail || !strings.Contains(got, "caddy is not installed") || !strings.Contains(got, "install it") {
			t.Errorf("%s=%q: skipped %q, failed %q", Env, c.value, r.skipped, r.failed)
		}
	}
}

func TestBrowserIsMissingWithoutChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(Env, "1")
	saved := browsers
	browsers = []string{"chromium-headless-shell"}
	defer func() { browsers = saved }()
	var r recorder
	if p := Browser(&r); p != "" || !strings.Contains(r.failed, "chromium-headless-shell is not installed") {
		t.Errorf("Browser = %q, failed %q", p, r.failed)
	}
}
