package lambdatest

import (
	"os"
	"testing"
)

// The emulator tests run bootstraps built by Build; what they test is what
// `make build` and `sam build` deploy only while both use the same tags.
func TestBuildUsesTheMakefilesLambdaTags(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	tags := MakefileTags(mk)
	if tags == "" {
		t.Fatal("the Makefile has no LAMBDA_BUILD line with -tags")
	}
	if tags != BuildTags {
		t.Errorf("Makefile LAMBDA_BUILD builds with -tags %s, lambdatest.Build with %s: make them the same", tags, BuildTags)
	}
	if agents := MakefileVarTags(mk, "AGENTS_BUILD"); agents != AgentsBuildTags {
		t.Errorf("Makefile AGENTS_BUILD builds with -tags %s, lambdatest.BuildAgents with %s: make them the same", agents, AgentsBuildTags)
	}
}

// BuildIn builds an earlier copy with that copy's own tags.
func TestMakefileTagsOfAnEarlierMakefile(t *testing.T) {
	mk := []byte("RIE = x\nLAMBDA_BUILD = CGO_ENABLED=0 $(GO) build -tags lambda.norpc,lambda -trimpath -ldflags \"-s -w\"\n")
	if got := MakefileTags(mk); got != "lambda.norpc,lambda" {
		t.Errorf("MakefileTags = %q, want lambda.norpc,lambda", got)
	}
	if got := MakefileVarTags(mk, "AGENTS_BUILD"); got != "" {
		t.Errorf("AGENTS_BUILD of a Makefile without it = %q, want none (BuildAgentsIn then builds LAMBDA_BUILD)", got)
	}
	if got := MakefileTags([]byte("build:\n\tgo build ./...\n")); got != "" {
		t.Errorf("MakefileTags of a Makefile without LAMBDA_BUILD = %q, want none", got)
	}
}
