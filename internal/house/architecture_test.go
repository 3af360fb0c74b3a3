package house

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository's root, seen from this package's directory (where
// go test runs a package's tests).
const root = "../.."

// tableScope is what docs/architecture.md's package table covers: every
// package under these directories has a row, and no row names another.
var tableScope = []string{"internal/", "functions/"}

// TestArchitectureImports keeps the package table in docs/architecture.md
// ("Layers") true: each row's imports column names exactly the project's
// packages that the row's packages import in their non-test code, as
// go list reports them, and every package in the table's scope has a row.
func TestArchitectureImports(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseImportsTable(string(doc))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	module, pkgs := listPackages(t)

	var problems []string
	for pkg, imports := range pkgs {
		if !inScope(pkg) {
			continue
		}
		documented, ok := rows[pkg]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s has no row (it imports %s)", pkg, describe(imports)))
			continue
		}
		if missing, extra := diff(imports, documented); len(missing)+len(extra) > 0 {
			var why []string
			if len(missing) > 0 {
				why = append(why, "the row lacks "+describe(missing))
			}
			if len(extra) > 0 {
				why = append(why, "it does not import "+describe(extra))
			}
			problems = append(problems, fmt.Sprintf("%s: the row says %s, go list says %s (%s)",
				pkg, describe(documented), describe(imports), strings.Join(why, "; ")))
		}
	}
	for pkg := range rows {
		if _, ok := pkgs[pkg]; !ok {
			problems = append(problems, fmt.Sprintf("the row for %s names no package of module %s (or one outside %v)", pkg, module, tableScope))
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		t.Errorf("docs/architecture.md's package table differs from go list:\n\t%s", strings.Join(problems, "\n\t"))
	}
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// parseImportsTable reads the table headed "| package | what it is |
// imports |": for each package in a row's first column (code spans), the
// project packages its imports column names (code spans; a bare name is
// under internal/), as paths relative to the module root.
func parseImportsTable(doc string) (map[string][]string, error) {
	lines := strings.Split(doc, "\n")
	start := slices.IndexFunc(lines, func(l string) bool {
		return strings.TrimSpace(l) == "| package | what it is | imports |"
	})
	if start < 0 {
		return nil, errors.New(`no table headed "| package | what it is | imports |"`)
	}
	rows := map[string][]string{}
	for i, l := range lines[start+2:] {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("line %d: %d cells, want 3 (package, what it is, imports): %s", start+3+i, len(cells), l)
		}
		var imports []string
		for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
			imports = append(imports, projectPath(m[1]))
		}
		slices.Sort(imports)
		imports = slices.Compact(imports)
		names := codeSpan.FindAllStringSubmatch(cells[0], -1)
		if len(names) == 0 {
			return nil, fmt.Errorf("line %d names no package: %s", start+3+i, l)
		}
		for _, m := range names {
			if _, dup := rows[m[1]]; dup {
				return nil, fmt.Errorf("line %d: %s has a second row", start+3+i, m[1])
			}
			rows[m[1]] = imports
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("the package table has no rows")
	}
	return rows, nil
}

// projectPath is the package a code span in the imports column names: a
// path in the table's scope as it is, a bare name under internal/.
func projectPath(name string) string {
	if inScope(name) {
		return name
	}
	return "internal/" + name
}

func inScope(pkg string) bool {
	return slices.ContainsFunc(tableScope, func(dir string) bool { return strings.HasPrefix(pkg, dir) })
}

// listPackages runs go list over the module and returns its path and, for
// every package, its non-test imports of the module's packages, relative
// to the module root.
func listPackages(t *testing.T) (string, map[string][]string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Module", "./...")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	type pkg struct {
		ImportPath string
		Imports    []string
		Module     *struct{ Path string }
	}
	module := ""
	pkgs := map[string][]string{}
	for dec := json.NewDecoder(&stdout); dec.More(); {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if p.Module == nil {
			t.Fatalf("go list: %s belongs to no module", p.ImportPath)
		}
		module = p.Module.Path
		prefix := module + "/"
		var imports []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, prefix); ok {
				imports = append(imports, rel)
			}
		}
		slices.Sort(imports)
		pkgs[strings.TrimPrefix(p.ImportPath, prefix)] = imports
	}
	if len(pkgs) == 0 {
		t.Fatal("go list listed no packages")
	}
	return module, pkgs
}

// diff returns what want has and got lacks, and what got has and want
// lacks; both are sorted.
func diff(want, got []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return missing, extra
}

func describe(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing of ours"
	}
	return strings.Join(pkgs, ", ")
}
