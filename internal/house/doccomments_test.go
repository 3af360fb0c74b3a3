package house

// Every exported top-level name under internal/ and functions/ must carry a
// doc comment of its own, so that go doc and a reader opening the file
// learn what a name is for without reading its body.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is where go.mod lives, seen from this package's directory.
const moduleRoot = "../.."

// checkedTrees are the source trees whose exported names must be documented.
var checkedTrees = []string{"internal", "functions"}

func TestEveryExportedNameHasADocComment(t *testing.T) {
	var missing []string
	walkSources(t, checkedTrees, func(path string) error {
		found, err := undocumented(path)
		missing = append(missing, found...)
		return err
	})
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d exported names lack a doc comment of their own that starts with the name (write what the name is for):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}

// undocumented parses one source file and returns "file:line: name" for each
// exported top-level name that has no doc comment. Generated files are skipped:
// their comments come from the generator.
func undocumented(path string) ([]string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(file) {
		return nil, nil
	}
	rel, _ := filepath.Rel(moduleRoot, path)
	var out []string
	report := func(pos token.Pos, name string) {
		out = append(out, rel+":"+strconv.Itoa(fset.Position(pos).Line)+": "+name)
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil {
				recv := receiverType(d.Recv)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
			}
			if !hasText(d.Doc) {
				report(d.Pos(), name)
			} else if !startsWith(d.Doc, d.Name.Name) {
				report(d.Pos(), name+" (the comment does not start with the name)")
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					// A lone type takes the declaration's comment; inside a
					// type ( ... ) group each type needs its own.
					if hasText(s.Doc) || (d.Lparen == token.NoPos && hasText(d.Doc)) {
						g := s.Doc
						if g == nil {
							g = d.Doc
						}
						if !startsWith(g, s.Name.Name) {
							report(s.Pos(), s.Name.Name+" (the comment does not start with the name)")
						}
						continue
					}
					report(s.Pos(), s.Name.Name)
				case *ast.ValueSpec:
					// For const and var a comment on the group counts: the
					// names of an enumeration are explained together.
					if hasText(s.Doc) || hasText(d.Doc) {
						continue
					}
					for _, n := range s.Names {
						if n.IsExported() {
							report(n.Pos(), n.Name)
						}
					}
				}
			}
		}
	}
	return out, nil
}

// receiverType names the type a method is declared on, without pointer or
// type parameters.
func receiverType(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	expr := fl.List[0].Type
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// hasText reports whether a comment group says something; a bare "//" or a
// directive such as //go:generate alone is not documentation.
func hasText(g *ast.CommentGroup) bool {
	return g != nil && strings.TrimSpace(g.Text()) != ""
}

// startsWith reports whether a doc comment opens with the name it documents,
// as go doc expects, allowing a leading article ("A Server ...").
func startsWith(g *ast.CommentGroup, name string) bool {
	t := strings.TrimSpace(g.Text())
	for _, a := range []string{"A ", "An ", "The "} {
		t = strings.TrimPrefix(t, a)
	}
	return strings.HasPrefix(t, name)
}
