package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// people runs the built binary's admin command with env, stdin; it returns
// stdout, stderr and the exit code.
func people(t *testing.T, bin string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return admin(t, bin, env, stdin, append([]string{"people"}, args...)...)
}

// The admin commands of the binary `make run` runs, on the local file:
// exit codes, only the asked-for value on stdout.
func TestPeopleCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	data := t.TempDir()
	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite", "LEDGER_ADDR=127.0.0.1:8080", "LEDGER_BASE_URL="}

	// add without a password: the invitation link alone on stdout.
	out, errOut, code := people(t, bin, env, "", "add", "alice", "--admin", "--name", "Alice Example")
	link := regexp.MustCompile(`^http://127\.0\.0\.1:8080/invite/([A-Za-z0-9_-]{43})\n$`).FindStringSubmatch(out)
	if code != 0 || link == nil {
		t.Fatalf("people add alice: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// add with --password-stdin: nothing on stdout.
	if out, errOut, code := people(t, bin, env, "a long enough password\n", "add", "bob", "--password-stdin"); code != 0 || out != "" {
		t.Fatalf("people add bob --password-stdin: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Refusals: exit 1 with the reason on stderr, nothing on stdout.
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"add", "alice"}, "", "exists already"},
		{[]string{"add", "Bad Handle"}, "", "handle"},
		{[]string{"add", "carol", "--password-stdin"}, "short\n", "at least 10"},
		{[]string{"disable", "nobody"}, "", "no person"},
	} {
		out, errOut, code := people(t, bin, env, c.stdin, c.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("people %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, code, out, errOut, c.want)
		}
	}
	// Usage errors: exit 2.
	for _, args := range [][]string{{}, {"frobnicate"}, {"add"}, {"add", "x", "--wat"}, {"list", "extra"}} {
		if out, _, code := people(t, bin, env, "", args...); code != 2 || out != "" {
			t.Errorf("people %v: exit %d, stdout %q; want 2 and nothing", args, code, out)
		}
	}
	if _, _, code := people(t, bin, env, "", "disable", "bob"); code != 0 {
		t.Fatalf("people disable bob: exit %d", code)
	}
	out, _, code = people(t, bin, env, "", "list")
	want := "alice\tadmin\tinvited\tAlice Example\nbob\tmember\tdisabled\tbob\n"
	if code != 0 || out != want {
		t.Fatalf("people list: exit %d\n%q\nwant\n%q", code, out, want)
	}
	if out, _, code := people(t, bin, env, "", "invite", "bob"); code != 0 || !strings.HasPrefix(out, "http://127.0.0.1:8080/invite/") {
		t.Fatalf("people invite bob: exit %d %q", code, out)
	}
	// On a deployed table the link must point at the deployment.
	if _, errOut, code := people(t, bin, []string{"LEDGER_STORE=dynamodb", "LEDGER_TABLE=x", "LEDGER_BASE_URL="}, "", "add", "dave"); code != 2 || !strings.Contains(errOut, "LEDGER_BASE_URL") {
		t.Fatalf("people add on DynamoDB without LEDGER_BASE_URL: exit %d %q", code, errOut)
	}

	// What the commands wrote, read from the file: bob's password is an
	// argon2id hash that verifies; alice's link is stored as its hash only.
	st, err := sqlite.OpenDir(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bob, err := st.GetPerson(context.Background(), "bob")
	if err != nil || !strings.HasPrefix(bob.PasswordHash, "$argon2id$v=19$m=65536,t=3,p=4$") || !bob.Disabled {
		t.Fatalf("bob = %+v, %v", bob, err)
	}
	if ok, err := auth.VerifyPassword(context.Background(), "a long enough password", bob.PasswordHash); !ok || err != nil {
		t.Fatalf("bob's password does not verify: %v", err)
	}
	inv, err := st.GetInvitation(context.Background(), auth.HashSecret(link[1]), bob.CreatedAt)
	if err != nil || inv.Handle != "alice" || inv.ExpiresAt.Sub(inv.CreatedAt) != auth.DefaultInvitationTTL {
		t.Fatalf("alice's invitation = %+v, %v", inv, err)
	}
	if alice, _ := st.GetPerson(context.Background(), "alice"); alice.Role != board.RoleAdmin {
		t.Fatalf("alice = %+v, want an admin", alice)
	}
}
