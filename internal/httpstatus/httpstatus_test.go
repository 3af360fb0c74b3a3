package httpstatus

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// want is the contract clients code against, written out once more so a
// change to the table is a change here too (docs/decisions.md, REST).
var want = map[string]int{
	"not_found":           404,
	"forbidden":           403,
	"invalid":             400,
	"conflict":            409,
	"in_progress":         409,
	"request_id_reused":   422,
	"precondition_failed": 412,
	"internal":            500,
}

// TestEveryDomainCode reads every constant of type board.Code from the
// board package's source, so a code added there without a status here
// fails rather than falling to 500 unnoticed.
func TestEveryDomainCode(t *testing.T) {
	codes := domainCodes(t)
	if len(codes) == 0 {
		t.Fatal("found no board.Code constants; is the parse looking at internal/board?")
	}
	for _, code := range codes {
		status, ok := want[code]
		if !ok {
			t.Errorf("board code %q has no status in this test's contract: decide one, add it to byCode and here, and say why in the table's comment", code)
			continue
		}
		if _, ok := byCode[board.Code(code)]; !ok {
			t.Errorf("board code %q is not in the table (Of answers 500 for it)", code)
		}
		if got := Of(board.Code(code)); got != status {
			t.Errorf("Of(%q) = %d, want %d", code, got, status)
		}
		if got := OfError(board.Errorf(board.Code(code), "x")); got != status {
			t.Errorf("OfError of a %q error = %d, want %d", code, got, status)
		}
	}
	for code := range byCode {
		if !slices.Contains(codes, string(code)) {
			t.Errorf("the table maps %q, which internal/board does not define", code)
		}
	}
	if extra := slices.DeleteFunc(slices.Collect(maps.Keys(want)), func(c string) bool { return slices.Contains(codes, c) }); len(extra) > 0 {
		t.Errorf("the contract names codes internal/board does not define: %v", extra)
	}
}

func TestNonDomainErrors(t *testing.T) {
	if got := OfError(errors.New("disk on fire")); got != 500 {
		t.Errorf("a plain error: %d, want 500", got)
	}
	if got := Of("no_such_code"); got != 500 {
		t.Errorf("an unknown code: %d, want 500", got)
	}
}

// domainCodes are the values of the constants of type Code declared in
// internal/board (test files aside).
func domainCodes(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("..", "board")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var codes []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a Code constant that is not a string literal; teach this parse to read it", fset.Position(v.Pos()))
					}
					s, _ := strconv.Unquote(lit.Value)
					codes = append(codes, s)
				}
			}
		}
	}
	slices.Sort(codes)
	return codes
}
