package house

// Every package says what it owns in one doc comment ("Package x …", or
// "Command x …" for a main package), so `go doc` and the package table of
// docs/architecture.md start from the package's own words. One comment, not
// several: go doc joins them in file order, which reads as a muddle.

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// packageTrees are the trees whose packages must say what they own.
var packageTrees = []string{"internal", "functions", "bench", "test-tools"}

func TestEveryPackageSaysWhatItOwns(t *testing.T) {
	byDir := map[string][]string{}
	walkSources(t, packageTrees, func(path string) error {
		byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], path)
		return nil
	})
	var problems []string
	for dir, files := range byDir {
		problem, err := packageDocProblem(files)
		if err != nil {
			t.Fatal(err)
		}
		if problem != "" {
			rel, _ := filepath.Rel(moduleRoot, dir)
			problems = append(problems, rel+": "+problem)
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Errorf("%d packages do not say what they own in one doc comment (write one, in doc.go or the package's main file, that starts \"Package <name>\" or \"Command <name>\"):\n%s",
			len(problems), strings.Join(problems, "\n"))
	}
}

// packageDocProblem reads the package clauses of one package's non-test Go
// files and says what is wrong with its doc comment ("" when nothing is).
func packageDocProblem(files []string) (string, error) {
	var docs []string
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", err
		}
		if hasText(f.Doc) {
			docs = append(docs, filepath.Base(path))
			if want := opening(f.Name.Name); !strings.HasPrefix(strings.TrimSpace(f.Doc.Text()), want) {
				return filepath.Base(path) + ": the package comment does not start with " + strings.TrimSpace(want), nil
			}
		}
	}
	switch {
	case len(docs) == 0:
		return "no package doc comment", nil
	case len(docs) > 1:
		return "package doc comments in " + strings.Join(docs, ", ") + ": keep one", nil
	}
	return "", nil
}

// walkSources calls visit with the path of every non-test Go file below
// the trees (paths from the module root), passing over testdata, vendored
// packages and the directories the go tool ignores (., _).
func walkSources(t *testing.T, trees []string, visit func(path string) error) {
	t.Helper()
	for _, tree := range trees {
		root := filepath.Join(moduleRoot, tree)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			return visit(path)
		})
		if err != nil {
			t.Fatalf("walking %s: %v", root, err)
		}
	}
}

// opening is how a package's doc comment starts.
func opening(pkg string) string {
	if pkg == "main" {
		return "Command "
	}
	return "Package " + pkg + " "
}
