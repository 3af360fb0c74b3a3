package boardfile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// A board file is not a credential: whoever wrote it cannot, through an
// import, give themselves a token or a grant of a person the target
// already holds. The file below is an attacker's: its own member "alice"
// with a token whose secret the attacker knows, and its own "cy" with
// connected agents; the target's alice and cy are admins.

// knownSecret is the secret of the file's token for alice.
const knownSecret = "tla_the-attacker-knows-this-one"

// hostileFile is an export of a board whose alice (a member) holds a
// token with knownSecret and whose cy holds connected agents.
func hostileFile(t *testing.T, clock *testbackends.Clock) []byte {
	t.Helper()
	src := open(t, testbackends.SQLite, clock)
	ctx := context.Background()
	if err := src.store.CreatePerson(ctx, board.Person{Handle: "alice", Name: "Not Alice", Role: board.RoleMember, CreatedAt: clock.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	hash := auth.HashSecret(knownSecret)
	if err := src.store.CreateToken(ctx, board.APIToken{ID: hash[:16], Hash: hash, Handle: "alice", CreatedBy: "human:alice", CreatedAt: clock.Now()}); err != nil {
		t.Fatal(err)
	}
	connectAgents(t, src)
	return export(t, src, boardfile.ExportOptions{WithPeople: true})
}

// adminTarget is a store of backend whose alice and cy are admins.
func adminTarget(t *testing.T, backend string, clock *testbackends.Clock) *fixture {
	t.Helper()
	dst := open(t, backend, clock)
	for _, h := range []string{"alice", "cy"} {
		if err := dst.store.CreatePerson(context.Background(), board.Person{Handle: h, Name: "The real " + h, Role: board.RoleAdmin,
			PasswordHash: "$argon2id$v=19$m=1,t=1,p=1$cmVhbA$cmVhbA", CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// checkNoCredential: the file's token signs no one in on dst, alice and
// cy are still the target's admins, and the target holds no connected
// agent.
func checkNoCredential(t *testing.T, dst *fixture) {
	t.Helper()
	accounts := auth.NewAccounts(auth.Config{Store: dst.store, Now: dst.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if p, ok, err := accounts.VerifyToken(context.Background(), knownSecret); err != nil || ok {
		t.Errorf("the file's token signs in on the target as %+v (ok %v, err %v); want it unknown", p, ok, err)
	}
	for _, h := range []string{"alice", "cy"} {
		if p, err := dst.store.GetPerson(context.Background(), h); err != nil || p.Role != board.RoleAdmin || p.Name != "The real "+h {
			t.Errorf("the target's %s became %+v (err %v)", h, p, err)
		}
	}
	held := export(t, dst, boardfile.ExportOptions{WithPeople: true})
	if c, g, tok := agentCounts(held); c+g+tok != 0 || bytes.Contains(held, []byte(`"kind":"token"`)) {
		t.Errorf("the target holds %d clients, %d grants, %d OAuth tokens and API tokens %v; want none from the file", c, g, tok, bytes.Contains(held, []byte(`"kind":"token"`)))
	}
}

// TestLoadGivesNoCredentialToAKeptPerson: with --merge=skip the target's
// alice and cy are kept, and their tokens and grants in the file are
// skipped and listed, on every store.
func TestLoadGivesNoCredentialToAKeptPerson(t *testing.T) {
	clock := testbackends.NewClock(t0)
	file := hostileFile(t, clock)
	for _, backend := range testbackends.Names() {
		t.Run(backend, func(t *testing.T) {
			dst := adminTarget(t, backend, clock)
			var listed strings.Builder
			res := loadInto(t, dst, file, boardfile.LoadOptions{Merge: boardfile.MergeSkip, WithPeople: true, Collisions: &listed})
			if res.Kept[boardfile.KindPerson] != 2 || res.Skipped[boardfile.KindToken] != 1 || res.Written[boardfile.KindToken] != 0 ||
				res.Written[boardfile.KindOAuthGrant]+res.Written[boardfile.KindOAuthToken] != 0 {
				t.Errorf("kept %v, skipped %v, written %v; want both people kept and their token and grants skipped", res.Kept, res.Skipped, res.Written)
			}
			if !strings.Contains(listed.String(), "token "+auth.HashSecret(knownSecret)[:16]+" of alice skipped") {
				t.Errorf("the skipped token is not listed:\n%s", listed.String())
			}
			checkNoCredential(t, dst)
		})
	}
}

// TestLoadRefusesCredentialsWithoutTheirPerson: a file that leaves the
// person line out, or whose header says it holds no people, stops at the
// credential's line and gives it to no one.
func TestLoadRefusesCredentialsWithoutTheirPerson(t *testing.T) {
	clock := testbackends.NewClock(t0)
	file := hostileFile(t, clock)
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	var noPerson []string
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"kind":"person"`) {
			noPerson = append(noPerson, l)
		}
	}
	noPerson[len(noPerson)-1] = withoutCount(t, noPerson[len(noPerson)-1], boardfile.KindPerson)
	headerFalse := append([]string{strings.Replace(lines[0], `"with_people":true`, `"with_people":false`, 1)}, lines[1:]...)
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
	cases := []struct {
		name       string
		file       []byte
		withPeople bool
		line       string // the line the import stops at starts with this
		want       string
	}{
		{"no person line", join(noPerson), true, `{"kind":"token"`, "its person alice has no line before it"},
		{"header says no people", join(headerFalse), false, `{"kind":"person"`, "header says it holds no people"},
		{"header says no people, --with-people", join(headerFalse), true, `{"format"`, "exported without people"},
	}
	for _, backend := range testbackends.Names() {
		for _, c := range cases {
			t.Run(backend+"/"+c.name, func(t *testing.T) {
				dst := adminTarget(t, backend, clock)
				_, err := boardfile.Load(context.Background(), dst.store, bytes.NewReader(c.file),
					boardfile.LoadOptions{Merge: boardfile.MergeSkip, WithPeople: c.withPeople, Now: clock.Now()})
				var le *boardfile.LineError
				all := strings.Split(strings.TrimSuffix(string(c.file), "\n"), "\n")
				if !errors.As(err, &le) || !strings.HasPrefix(all[le.Line-1], c.line) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("import: %v; want it stopped at a line starting %s, saying %q", err, c.line, c.want)
				}
				checkNoCredential(t, dst)
			})
		}
	}
}

// TestLoadWithoutWithPeopleSkipsPeople: a file with people imported
// without --with-people writes none of them, and counts them skipped.
func TestLoadWithoutWithPeopleSkipsPeople(t *testing.T) {
	clock := testbackends.NewClock(t0)
	file := hostileFile(t, clock)
	for _, backend := range []string{testbackends.SQLite, testbackends.Minidyn} {
		t.Run(backend, func(t *testing.T) {
			dst := open(t, backend, clock)
			res, err := boardfile.Load(context.Background(), dst.store, bytes.NewReader(file), boardfile.LoadOptions{Now: clock.Now()})
			if err != nil {
				t.Fatal(err)
			}
			if res.Skipped[boardfile.KindPerson] != 2 || res.Skipped[boardfile.KindToken] != 1 || res.Written[boardfile.KindPerson] != 0 {
				t.Errorf("skipped %v, written %v; want every person and token skipped", res.Skipped, res.Written)
			}
			if _, err := dst.store.GetPerson(context.Background(), "alice"); !errors.Is(err, board.ErrNotFound) {
				t.Errorf("alice: %v; want no such person", err)
			}
		})
	}
}

// TestLoadRefusesATokenOfTheTargetsGrant: an OAuth token line naming a
// grant the target holds, and the file does not, is refused: it would be
// a new credential of the target's grant.
func TestLoadRefusesATokenOfTheTargetsGrant(t *testing.T) {
	clock := testbackends.NewClock(t0)
	file := hostileFile(t, clock)
	for _, backend := range []string{testbackends.SQLite, testbackends.Minidyn} {
		t.Run(backend, func(t *testing.T) {
			dst := open(t, backend, clock)
			connectAgents(t, dst) // the target's own cy and her grants
			held := export(t, dst, boardfile.ExportOptions{WithPeople: true})
			theirs := regexp.MustCompile(`"kind":"oauth_grant","oauth_grant":\{"id":"([0-9a-f]{16})"`).FindSubmatch(held)
			if theirs == nil {
				t.Fatal("the target holds no grant")
			}
			lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
			tok := indexOf(t, lines, `{"kind":"oauth_token"`)
			lines[tok] = regexp.MustCompile(`"grant_id":"[0-9a-f]+"`).ReplaceAllString(lines[tok], `"grant_id":"`+string(theirs[1])+`"`)
			_, err := boardfile.Load(context.Background(), dst.store, strings.NewReader(strings.Join(lines, "\n")+"\n"),
				boardfile.LoadOptions{Merge: boardfile.MergeSkip, WithPeople: true, Now: clock.Now()})
			var le *boardfile.LineError
			if !errors.As(err, &le) || le.Line != tok+1 || !strings.Contains(err.Error(), "has no line before it in this file") {
				t.Fatalf("import: %v; want line %d refused", err, tok+1)
			}
			if _, g, n := agentCounts(export(t, dst, boardfile.ExportOptions{WithPeople: true})); n != tokensOf(held) || g == 0 {
				t.Errorf("the target holds %d OAuth tokens, had %d", n, tokensOf(held))
			}
		})
	}
}

func tokensOf(file []byte) int { _, _, n := agentCounts(file); return n }

// withoutCount is an end line with kind's count left out.
func withoutCount(t *testing.T, end, kind string) string {
	t.Helper()
	var l map[string]any
	if err := json.Unmarshal([]byte(end), &l); err != nil {
		t.Fatal(err)
	}
	delete(l["counts"].(map[string]any), kind)
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
