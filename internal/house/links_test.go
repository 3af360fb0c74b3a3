package house

// README is a front door into docs/: a link that leads nowhere, or to a
// heading that was renamed, sends a reader away with nothing. Every relative
// link in README.md and docs/*.md must name a file of the repository, and
// its #fragment a heading of that file (GitHub's anchors).

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches [text](target) and ![alt](target), target without spaces.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// readmeMaxLines keeps README a front door: what it is, the two commands,
// connecting, deploying and where to read on.
const readmeMaxLines = 200

func TestReadmeIsShort(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	if n := strings.Count(readme, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into docs/", n, readmeMaxLines)
	}
}

func TestDocumentationLinksResolve(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(withoutCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, fragment, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			rel, _ := filepath.Rel(root, page)
			info, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s: link %q: no such file", rel, target)
				continue
			}
			if fragment == "" || info.IsDir() || !strings.HasSuffix(dest, ".md") {
				continue
			}
			dtext, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(dtext))[fragment] {
				t.Errorf("%s: link %q: %s has no heading with that anchor", rel, target, filepath.Base(dest))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the pattern is broken")
	}
}

// withoutCode blanks fenced code blocks and inline code, where brackets
// are code, not links.
func withoutCode(s string) string { return blankCode(s, true) }

// withoutFences blanks fenced code blocks only: a heading's inline code is
// part of its anchor.
func withoutFences(s string) string { return blankCode(s, false) }

var inlineCode = regexp.MustCompile("`[^`]*`")

func blankCode(s string, inline bool) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(s, "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		if fence {
			fenced = !fenced
		}
		switch {
		case fence || fenced:
			b.WriteString("\n")
		case inline:
			b.WriteString(inlineCode.ReplaceAllString(line, "``"))
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

// anchors lists the fragment of every heading in a Markdown page, as
// GitHub makes them: lower case, punctuation dropped, spaces as hyphens,
// a repeated heading suffixed -1, -2, ….
func anchors(page string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range strings.Split(withoutFences(page), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		s := slug.String()
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}
