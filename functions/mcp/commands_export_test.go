//go:build !lambda

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// growLocal writes n tickets with notes into a new local store in dir, as
// a server would, and returns the create arguments of ticket 1.
func growLocal(t *testing.T, dir string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := board.NewService(board.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	agent := board.WithPrincipal(ctx, board.Principal{Author: "ai:alice", OnBehalfOf: "human:ada", Source: board.SourceMCP})
	for i := 1; i <= n; i++ {
		res, err := svc.CreateTicket(agent, board.CreateTicketInput{RequestID: fmt.Sprintf("c-%d", i), Workspace: "inbox", NewTicket: board.NewTicket{Title: fmt.Sprintf("Ticket %d", i), Tags: []string{"moved"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.AddNote(agent, board.AddNoteInput{RequestID: fmt.Sprintf("n-%d", i), ID: res.Ticket.ID, Body: "noted"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreatePerson(ctx, board.Person{Handle: "ada", Name: "Ada", Role: board.RoleAdmin, PasswordHash: "hash-only", CreatedAt: time.Now().UTC()}, nil); err != nil {
		t.Fatal(err)
	}
	hooks := webhook.New(webhook.Config{Store: st, Secrets: st, Workspaces: st})
	ada := board.WithPrincipal(ctx, board.Principal{Author: "human:ada", Role: board.RoleAdmin, Source: board.SourceREST})
	if _, err := hooks.Create(ada, webhook.CreateInput{RequestID: "hook", Workspace: "inbox", URL: "https://hooks.example.com/ledger"}); err != nil {
		t.Fatal(err)
	}
}

// sortedItems is an export's lines without its header, sorted.
func sortedItems(file string) []string {
	lines := strings.Split(strings.TrimSpace(file), "\n")
	out := slices.Clone(lines[1:])
	slices.Sort(out)
	return out
}

// The export and import-board commands of the built binary: a local board
// moved to a DynamoDB table (minidyn) and back to a new local store, with
// people; a second run that writes nothing; a used store refused without
// --merge; bad arguments and a bad file with their exit codes.
func TestExportImportCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	local := t.TempDir()
	growLocal(t, local, 5)
	localEnv := []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + local}
	mini := testbackends.StartMinidyn(t, nil)
	dynEnv := []string{"LEDGER_STORE=dynamodb", "DYNAMODB_ENDPOINT=" + mini.URL, "LEDGER_TABLE=moved", "LEDGER_CREATE_TABLE=1",
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test"}

	file, errOut, code := admin(t, bin, localEnv, "", "export", "--with-people")
	if code != exitOK || !strings.HasPrefix(file, `{"format":"ticket-ledger-board","version":1`) || !strings.Contains(errOut, "exported 3 workspace, 5 ticket, 5 note, 10 event, 5 inbox_item, 10 request, 1 person") {
		t.Fatalf("export: exit %d, stderr %q, stdout starts %.80q", code, errOut, file)
	}
	if strings.Contains(file, "password\"") || !strings.Contains(file, `"password_hash":"hash-only"`) {
		t.Errorf("the export should hold the password's hash only")
	}
	// The webhook moves with its secret sealed (and the key that opens
	// it) only with people; a fresh target adopts that key, so the board
	// moved there and back exports the same file (below).
	if !strings.Contains(errOut, "1 webhook_key, 1 webhook") || !strings.Contains(file, `"sealed_secret":`) || strings.Contains(file, "whsec_") {
		t.Errorf("export --with-people: stderr %q; want the webhook with its sealed secret", errOut)
	}
	if _, errOut, code := admin(t, bin, dynEnv, file, "import-board", "--with-people"); code != exitOK || !strings.Contains(errOut, "imported: written") {
		t.Fatalf("import-board into DynamoDB: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := admin(t, bin, dynEnv, file, "import-board", "--with-people"); code != exitOK || !strings.Contains(errOut, "written nothing") {
		t.Errorf("a second import-board: exit %d, stderr %q; want nothing written", code, errOut)
	}
	fromDyn, _, code := admin(t, bin, dynEnv, "", "export", "--with-people")
	if code != exitOK || !slices.Equal(sortedItems(fromDyn), sortedItems(file)) {
		t.Fatalf("the table's export (exit %d) differs from the local one", code)
	}
	back := []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + t.TempDir()}
	if _, errOut, code := admin(t, bin, back, fromDyn, "import-board", "--with-people"); code != exitOK {
		t.Fatalf("import-board back to a local store: exit %d, stderr %q", code, errOut)
	}
	if again, _, _ := admin(t, bin, back, "", "export", "--with-people"); !slices.Equal(sortedItems(again), sortedItems(file)) {
		t.Errorf("the board back on a local store differs from the original")
	}
	one, _, code := admin(t, bin, localEnv, "", "export", "--workspace", "inbox")
	if code != exitOK || strings.Contains(one, `"kind":"person"`) || !strings.Contains(one, `"workspace":"inbox"`) {
		t.Errorf("export --workspace inbox: exit %d", code)
	}
	// People move only when both the file and the command say so.
	if _, errOut, code := admin(t, bin, []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + t.TempDir()}, one, "import-board", "--with-people"); code != exitFailed || !strings.Contains(errOut, "exported without people") {
		t.Errorf("import-board --with-people of a file without people: exit %d, stderr %q", code, errOut)
	}
	noPeople := []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + t.TempDir()}
	if _, errOut, code := admin(t, bin, noPeople, file, "import-board"); code != exitOK || !strings.Contains(errOut, "skipped 1 person") || !strings.Contains(errOut, "import it again with --with-people") {
		t.Errorf("import-board without --with-people: exit %d, stderr %q", code, errOut)
	}
	moved, _, _ := admin(t, bin, noPeople, "", "export", "--with-people")
	if strings.Contains(moved, `"kind":"person"`) {
		t.Errorf("import-board without --with-people wrote people")
	}
	if strings.Contains(moved, `"sealed_secret"`) || strings.Contains(moved, `"kind":"webhook_key"`) || !strings.Contains(moved, `"paused":true,"paused_reason":"moved without its signing secret`) {
		t.Errorf("import-board without --with-people: the webhook should arrive paused without a secret:\n%s", moved)
	}
	if strings.Contains(one, `"sealed_secret"`) || !strings.Contains(one, `"kind":"webhook"`) {
		t.Errorf("export without --with-people: the webhook should move without its secret")
	}

	// A used store: refused without --merge, taken with --merge=skip.
	other := t.TempDir()
	growLocal(t, other, 1)
	otherEnv := []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + other}
	if _, errOut, code := admin(t, bin, otherEnv, file, "import-board"); code != exitFailed || !strings.Contains(errOut, "--merge=skip") {
		t.Errorf("import-board into a used store: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := admin(t, bin, otherEnv, file, "import-board", "--merge=skip"); code != exitOK || !strings.Contains(errOut, "ticket inbox-1 is in the target with other content") {
		t.Errorf("import-board --merge=skip: exit %d, stderr %q", code, errOut)
	}

	for _, args := range [][]string{{"export", "--nope"}, {"import-board", "--merge=overwrite"}, {"import-board", "extra"}} {
		if _, errOut, code := admin(t, bin, localEnv, "", args...); code != exitUsage || !strings.Contains(errOut, "usage:") {
			t.Errorf("%v: exit %d, stderr %q; want the usage and exit %d", args, code, errOut, exitUsage)
		}
	}
	truncated := file[:strings.LastIndex(strings.TrimSuffix(file, "\n"), "\n")+1]
	fresh := []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + t.TempDir()}
	if _, errOut, code := admin(t, bin, fresh, truncated, "import-board"); code != exitFailed || !strings.Contains(errOut, "without its end line") {
		t.Errorf("a truncated file: exit %d, stderr %q", code, errOut)
	}
}

// An import-board killed part way (SIGKILL, after some lines reached the
// store) and run again with the same file completes the board, with
// nothing written twice.
func TestImportBoardResumesAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	local := t.TempDir()
	growLocal(t, local, 40)
	file, _, code := admin(t, bin, []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + local}, "", "export")
	if code != exitOK {
		t.Fatal("export failed")
	}
	target := t.TempDir()
	env := []string{"LEDGER_STORE=sqlite", "LEDGER_DATA=" + target}

	cmd := exec.Command(bin, "import-board")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Half the file, then wait (the pipe stays open) until tickets are in
	// the store, and kill the process mid-import.
	lines := strings.SplitAfter(file, "\n")
	w := bufio.NewWriter(stdin)
	for _, l := range lines[:len(lines)/2] {
		io.WriteString(w, l)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	waitForTickets(t, filepath.Join(target, sqlite.FileName))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	_, errOut, code := admin(t, bin, env, file, "import-board")
	if code != exitOK || !strings.Contains(errOut, "already there") {
		t.Fatalf("the rerun: exit %d, stderr %q", code, errOut)
	}
	got, _, _ := admin(t, bin, env, "", "export")
	// The webhook moved without its secret, so it arrives paused (the
	// rest is the same board).
	withoutHooks := func(file string) []string {
		return slices.DeleteFunc(sortedItems(file), func(l string) bool { return strings.HasPrefix(l, `{"kind":"webhook"`) })
	}
	if !slices.Equal(withoutHooks(got), withoutHooks(file)) || !strings.Contains(got, `"paused":true,"paused_reason":"moved without its signing secret`) {
		t.Errorf("after the kill and the rerun the board differs from the source")
	}
}

// waitForTickets polls the store until it holds a ticket.
func waitForTickets(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			st, err := sqlite.Open(context.Background(), path)
			if err == nil {
				empty, err := st.BoardEmpty(context.Background())
				st.Close()
				if err == nil && !empty {
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no ticket reached the store in 30 s")
}
