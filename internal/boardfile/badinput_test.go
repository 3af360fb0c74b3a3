package boardfile_test

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// TestBadInput: each kind of bad file stops the import at its line, with
// the number in the error, and nothing from that line on is written.
func TestBadInput(t *testing.T) {
	clock := testbackends.NewClock(t0)
	src := open(t, testbackends.SQLite, clock)
	grow(t, src, 12)
	relate(t, src)
	connectAgents(t, src)
	file := export(t, src, boardfile.ExportOptions{WithPeople: true})
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	// A ticket in the middle of the tickets, and the first note.
	mid := indexOf(t, lines, `{"kind":"ticket","ticket":{"id":"ops-2"`)
	firstNote := indexOf(t, lines, `{"kind":"note"`)
	// The last note: its batch holds the notes before it.
	lastNote := firstNote
	for strings.HasPrefix(lines[lastNote+1], `{"kind":"note"`) {
		lastNote++
	}
	if lastNote == firstNote {
		t.Fatal("the board has one note; the tests need two")
	}
	grant := indexOf(t, lines, `{"kind":"oauth_grant"`)
	client := indexOf(t, lines, `{"kind":"oauth_client"`)
	token := indexOf(t, lines, `{"kind":"oauth_token"`)
	rel := indexOf(t, lines, `{"kind":"relation","relation":{"kind":"blocks","from":"ops-1","to":"ops-2"}}`)
	relBlocks := indexOf(t, lines, `{"kind":"relation","relation":{"kind":"blocks","from":"ops-3","to":"ops-4"}}`)
	relLast := indexOf(t, lines, `{"kind":"relation","relation":{"kind":"parent","from":"ops-7","to":"ops-8"}}`)
	relation := func(kind, from, to string) string {
		return `{"kind":"relation","relation":{"kind":"` + kind + `","from":"` + from + `","to":"` + to + `"}}`
	}
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
	with := func(i int, l string) []byte {
		c := append([]string(nil), lines...)
		c[i] = l
		return join(c)
	}

	cases := []struct {
		name string
		file []byte
		line int    // 1-based line the import stops at
		want string // in the error
		kept int    // leading lines whose items are written (default: line-1)
	}{
		// A file cut after a whole line stops after it: that line's item
		// is written (a rerun with the whole file completes the rest).
		{"truncated", join(lines[:firstNote+1]), firstNote + 1, "without its end line", firstNote + 1},
		{"cut mid-line", []byte(strings.Join(lines[:firstNote], "\n") + "\n" + lines[firstNote][:20]), firstNote + 1, "not a valid line", -1},
		{"unknown version", with(0, strings.Replace(lines[0], `"version":1`, `"version":2`, 1)), 1, "format version 2", 0},
		{"not an export", with(0, `{"hello":"world"}`), 1, "not a ticket-ledger-board header", 0},
		{"export id that is no id", with(0, regexp.MustCompile(`"export_id":"[0-9a-f]+"`).ReplaceAllString(lines[0], `"export_id":"`+strings.Repeat("x", 1000)+`"`)), 1, "export_id", 0},
		{"unknown kind", with(mid, `{"kind":"ticket-ish"}`), mid + 1, `unknown kind "ticket-ish"`, -1},
		{"malformed JSON", with(mid, `{"kind":"ticket","ticket":{`), mid + 1, "not a valid line", -1},
		{"unknown field", with(mid, strings.Replace(lines[mid], `"kind":"ticket"`, `"kind":"ticket","colour":"red"`, 1)), mid + 1, "unknown field", -1},
		{"workspace missing", with(mid, strings.ReplaceAll(lines[mid], `ops`, `gone`)), mid + 1, "workspace gone is not in the file", -1},
		{"invalid ticket", with(mid, strings.Replace(lines[mid], `"status":"`, `"status":"x`, 1)), mid + 1, "status", -1},
		{"note of a missing ticket", with(lastNote, strings.ReplaceAll(lines[lastNote], `"ops-`, `"ops-9`)), lastNote + 1, "not in the target store", -1}, // its id names its ticket too
		{"end counts wrong", with(len(lines)-1, strings.Replace(lines[len(lines)-1], `"ticket":`, `"ticket":1`, 1)), len(lines), "end line counts", -1},
		{"line after the end", join(append(append([]string(nil), lines...), lines[mid])), len(lines) + 1, "after the end line", -1},
		{"grant whose person is missing", with(grant, strings.Replace(lines[grant], `"handle":"cy"`, `"handle":"zed"`, 1)), grant + 1, "its person zed has no line before it in this file", -1},
		{"grant whose client is missing", with(grant, regexp.MustCompile(`"client_id":"tlc_[0-9a-f]+"`).ReplaceAllString(lines[grant], `"client_id":"tlc_`+strings.Repeat("0", 32)+`"`)), grant + 1, "its client tlc_000", -1},
		{"grant with a bad agent", with(grant, strings.Replace(lines[grant], `"agent":"claude"`, `"agent":"ai:no agent"`, 1)), grant + 1, "agent", -1},
		{"client without redirect URIs", with(client, regexp.MustCompile(`"redirect_uris":\[[^]]*\]`).ReplaceAllString(lines[client], `"redirect_uris":[]`)), client + 1, "no redirect URI", -1},
		{"token whose grant is missing", with(token, regexp.MustCompile(`"grant_id":"[0-9a-f]+"`).ReplaceAllString(lines[token], `"grant_id":"00000000000000ff"`)), token + 1, "its grant 00000000000000ff has no line before it in this file", -1},
		{"token that is no hash", with(token, regexp.MustCompile(`"hash":"[0-9a-f]+"`).ReplaceAllString(lines[token], `"hash":"tla_secret"`)), token + 1, "hashes, never tokens", -1},
		{"unknown field of a grant", with(grant, strings.Replace(lines[grant], `"kind":"oauth_grant"`, `"kind":"oauth_grant","secret":"x"`, 1)), grant + 1, "unknown field", -1},
		{"relation of no kind", with(rel, relation("depends", "ops-1", "ops-2")), rel + 1, `kind "depends" is not blocks or parent`, -1},
		{"relation across workspaces", with(rel, relation("blocks", "ops-1", "inbox-1")), rel + 1, "different workspaces", -1},
		{"relation to a ticket not in the file", with(rel, relation("blocks", "ops-1", "ops-99")), rel + 1, "ticket ops-99 is not in the file", -1},
		{"relation of a ticket to itself", with(rel, relation("parent", "ops-1", "ops-1")), rel + 1, "itself", -1},
		{"relation twice", with(rel+1, lines[rel]), rel + 2, "in the file twice", -1},
		{"blocks cycle", with(relBlocks, relation("blocks", "ops-2", "ops-1")), relBlocks + 1, "(a cycle)", -1},
		{"parent cycle", with(relLast, relation("parent", "ops-7", "ops-1")), relLast + 1, "(a cycle)", -1},
		{"second parent", with(relLast, relation("parent", "ops-2", "ops-7")), relLast + 1, "already has parent ops-1", -1},
		{"line too long", with(mid, `{"kind":"ticket","x":"`+strings.Repeat("a", boardfile.MaxLine)+`"}`), mid + 1, "longer than", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := open(t, testbackends.SQLite, clock)
			fresh := len(items(export(t, dst, boardfile.ExportOptions{WithPeople: true})))
			res, err := boardfile.Load(context.Background(), dst.store, bytes.NewReader(c.file), boardfile.LoadOptions{Now: clock.Now(), WithPeople: true})
			var le *boardfile.LineError
			if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want a line %d error with %q", err, c.line, c.want)
			}
			// Nothing from the bad line on: the store holds exactly the
			// items of the lines before it.
			kept := c.kept
			if kept < 0 {
				kept = c.line - 1
			}
			wrote := res.WrittenTotal() + total(res.AlreadyThere)
			if before := itemLines(lines[:min(kept, len(lines))]); wrote != before {
				t.Errorf("%d items written or found, want the %d items of the first %d lines", wrote, before, kept)
			}
			if got := len(items(export(t, dst, boardfile.ExportOptions{WithPeople: true}))) - fresh; got > res.WrittenTotal() {
				t.Errorf("the target holds %d new items, more than the %d the import reported written", got, res.WrittenTotal())
			}
		})
	}
}

func indexOf(t *testing.T, lines []string, prefix string) int {
	t.Helper()
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	t.Fatalf("no line starts with %s", prefix)
	return 0
}

// itemLines counts the item lines (not the header or the end line).
func itemLines(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `{"kind":`) && !strings.HasPrefix(l, `{"kind":"end"`) {
			n++
		}
	}
	return n
}

func total(c boardfile.Counts) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}
