package house

// Every package says what it owns in one doc comment ("Package x …", or
// "Command x …" for a main package), so `go doc` and the package table of
// docs/architecture.md start from the package's own words. One comment, not
// several: go doc joins them in file order, which reads as a muddle.

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// packageTrees are the trees whose packages must say what they own.
var packageTrees = []string{"internal", "functions", "bench", "test-tools"}

func TestEveryPackageSaysWhatItOwns(t *testing.T) {
	var problems []string
	for _, tree := range packageTrees {
		root := filepath.Join(moduleRoot, tree)
		err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if dir != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			problem, err := packageDocProblem(dir)
			if err != nil {
				return err
			}
			if problem != "" {
				rel, _ := filepath.Rel(moduleRoot, dir)
				problems = append(problems, rel+": "+problem)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walking %s: %v", root, err)
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Errorf("%d packages do not say what they own in one doc comment (write one, in doc.go or the package's main file, that starts \"Package <name>\" or \"Command <name>\"):\n%s",
			len(problems), strings.Join(problems, "\n"))
	}
}

// packageDocProblem reads the package clauses of dir's non-test Go files
// and says what is wrong with the package's doc comment ("" when nothing
// is, or when dir holds no package).
func packageDocProblem(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var name string
	var docs []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", err
		}
		name = f.Name.Name
		if hasText(f.Doc) {
			docs = append(docs, e.Name())
			if want := opening(f.Name.Name); !strings.HasPrefix(strings.TrimSpace(f.Doc.Text()), want) {
				return e.Name() + ": the package comment does not start with " + strings.TrimSpace(want), nil
			}
		}
	}
	switch {
	case name == "":
		return "", nil
	case len(docs) == 0:
		return "no package doc comment", nil
	case len(docs) > 1:
		return "package doc comments in " + strings.Join(docs, ", ") + ": keep one", nil
	}
	return "", nil
}

// opening is how a package's doc comment starts.
func opening(pkg string) string {
	if pkg == "main" {
		return "Command "
	}
	return "Package " + pkg + " "
}
