package lambdatest

import (
	"os"
	"regexp"
	"testing"
)

// The emulator tests run bootstraps built by Build; what they test is what
// `make build` and `sam build` deploy only while both use the same tags.
func TestBuildUsesTheMakefilesLambdaTags(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LAMBDA_BUILD\s*=.*-tags (\S+)`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no LAMBDA_BUILD line with -tags")
	}
	if string(m[1]) != BuildTags {
		t.Errorf("Makefile LAMBDA_BUILD builds with -tags %s, lambdatest.Build with %s: make them the same", m[1], BuildTags)
	}
}
