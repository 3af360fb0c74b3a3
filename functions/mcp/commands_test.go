package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// An unknown first word used to start the server; now it prints the
// commands and exits 2 at once, and help lists them. Run with the real
// binary: a server started by mistake would still be running at the
// deadline and be killed, failing the test.
func TestUnknownCommandIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildServer(t)
	run := func(args ...string) (string, string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = []string{"LEDGER_DATA=" + t.TempDir(), "LEDGER_ADDR=127.0.0.1:0"}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("%v: still running after 20 s (a server started?)", args)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), errb.String(), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), 0
	}
	for _, args := range [][]string{{"backpu", "x.db"}, {"serve"}, {"--addr", ":80"}} {
		out, errOut, code := run(args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "unknown command") || !strings.Contains(errOut, "backup <file>") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and the commands on stderr", args, code, out, errOut)
		}
	}
	for _, h := range []string{"help", "--help", "-h"} {
		out, _, code := run(h)
		if code != exitOK || !strings.Contains(out, "people <command>") || !strings.Contains(out, "tokens <command>") || !strings.Contains(out, "backup <file>") ||
			!strings.Contains(out, "export ") || !strings.Contains(out, "import-board ") {
			t.Errorf("%s: exit %d, stdout %q; want the commands", h, code, out)
		}
	}
}

// backup runs the built binary's backup command (admin).
func backup(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return admin(t, bin, env, "", append([]string{"backup"}, args...)...)
}

// The backup command beside a running server: it copies the file the
// server is using, prints what it wrote, never overwrites, refuses a
// DynamoDB store with where to look instead; restoring is starting a
// server on the copy, which answers what the first one had written, and a
// retry replays there.
func TestBackupCommandBesideARunningServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bin := buildServer(t)
	data := t.TempDir()
	srv := startServer(ctx, t, bin, data)
	cs := connect(ctx, t, srv)
	created := map[string]string{} // request_id → ticket id
	for i := range 30 {
		rid := fmt.Sprintf("backup-%d", i)
		res, err := callTool[board.TicketResult](ctx, cs, "create_ticket", map[string]any{"request_id": rid, "workspace": crashWorkspace, "title": "Before the backup " + rid})
		if err != nil {
			t.Fatal(err)
		}
		created[rid] = res.Ticket.ID
	}

	env := []string{"LEDGER_DATA=" + data, "LEDGER_STORE=sqlite"}
	dest := filepath.Join(t.TempDir(), "copy.db")
	out, errOut, code := backup(t, bin, env, dest)
	m := regexp.MustCompile(`^(\S+)\t(\d+) bytes\t(\d+) tickets\t(\d+) workspaces\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != dest {
		t.Fatalf("backup: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n, _ := strconv.Atoi(m[3]); n < len(created) {
		t.Fatalf("backup says %s tickets, want at least %d", m[3], len(created))
	}
	// The copy holds what the store holds: its owner's alone, as the
	// store's own file is.
	for _, f := range []string{dest, filepath.Join(data, sqliteFileName)} {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, want 0600", f, info.Mode())
		}
	}
	if _, errOut, code := backup(t, bin, env, dest); code != exitFailed || !regexp.MustCompile(`never overwrites`).MatchString(errOut) {
		t.Fatalf("a second backup to the same file: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := backup(t, bin, []string{"LEDGER_STORE=dynamodb"}, filepath.Join(t.TempDir(), "x.db")); code != exitFailed || !regexp.MustCompile(`point-in-time recovery`).MatchString(errOut) {
		t.Fatalf("backup on DynamoDB: exit %d, stderr %q", code, errOut)
	}
	if _, _, code := backup(t, bin, env); code != exitUsage {
		t.Fatalf("backup without a file: exit %d, want %d", code, exitUsage)
	}
	srv.stop(t)

	// Restore: a server on a folder holding the copy as its store.
	restored := t.TempDir()
	raw, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, "ledger.db"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	srv2 := startServer(ctx, t, bin, restored)
	defer srv2.stop(t)
	cs2 := connect(ctx, t, srv2)
	for rid, id := range created {
		res, err := callTool[board.TicketResult](ctx, cs2, "create_ticket", map[string]any{"request_id": rid, "workspace": crashWorkspace, "title": "Before the backup " + rid})
		if err != nil || !res.Replayed || res.Ticket.ID != id {
			t.Fatalf("retry of %s on the restored server: %v replayed=%v id=%s, want %s replayed", rid, err, res.Replayed, res.Ticket.ID, id)
		}
	}
}

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

// reindex-words writes the word items of tickets that have none (a table
// whose tickets were written before word search), so they are found; on
// SQLite it says the migration does it.
func TestReindexWordsCommand(t *testing.T) {
	ctx := context.Background()
	store, client, table, env := newReindexTable(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var tickets []board.Ticket
	for n := int64(1); n <= 150; n++ {
		tickets = append(tickets, board.Ticket{ID: "inbox-" + itoaTest(n), Workspace: "inbox", Number: n, Title: "Printer jam " + itoaTest(n),
			Status: board.StatusCandidate, Priority: board.PriorityNormal, Tags: []string{}, Links: []board.Link{}, CreatedBy: "ai:x", CreatedAt: now, UpdatedAt: now, Version: 1})
	}
	putTickets(t, store, tickets...)
	// As a table from before word search: no item of "printer".
	out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "S#inbox#pr"}}})
	if err != nil || len(out.Items) != 150 {
		t.Fatalf("printer's items: %d, %v", len(out.Items), err)
	}
	for _, item := range out.Items {
		if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func() int {
		page, err := store.ListTickets(ctx, board.TicketQuery{Workspace: "inbox", Query: "printer ", Limit: board.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Tickets)
	}
	if n := found(); n != 0 {
		t.Fatalf("printer finds %d tickets without its items", n)
	}

	var stdout, stderr bytes.Buffer
	cmd := command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stdout.String(), "inbox\t150 tickets\n") ||
		!strings.Contains(stderr.String(), "reindexed the words of 150 tickets") {
		t.Fatalf("reindex-words: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := found(); n != board.MaxLimit {
		t.Errorf("after reindex-words printer finds %d tickets on its first page, want %d", n, board.MaxLimit)
	}

	// --from resumes at a ticket: it and the older ones are reindexed.
	out, err = client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "S#inbox#pr"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range out.Items {
		if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Reset()
	stderr.Reset()
	cmd = command{args: []string{"reindex-words", "--from", "inbox-40"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stdout.String(), "inbox\t40 tickets\n") {
		t.Fatalf("reindex-words --from inbox-40: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := found(); n != 40 {
		t.Errorf("after reindex-words --from inbox-40 printer finds %d tickets, want 40", n)
	}
	cmd = command{args: []string{"reindex-words", "--from", "inbox"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitUsage {
		t.Errorf("reindex-words --from inbox: exit %d, want usage", code)
	}

	stdout.Reset()
	stderr.Reset()
	cmd = command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(map[string]string{envStore: storeSQLite, envData: t.TempDir()})}
	if code := cmd.run(ctx); code != exitFailed || !strings.Contains(stderr.String(), "schema migration fills") {
		t.Errorf("reindex-words on SQLite: exit %d, stderr %q", code, stderr.String())
	}
}

func itoaTest(n int64) string { return strconv.FormatInt(n, 10) }

// newReindexTable is a table on a fresh minidyn for reindex-words: its
// store, a client that reads and changes its items directly, its name, and
// the environment that names it to a command.
func newReindexTable(t *testing.T) (*dynamo.Store, *dynamodb.Client, string, map[string]string) {
	t.Helper()
	testbackends.FakeAWSCredentials(t)
	ctx := context.Background()
	mini := testbackends.StartMinidyn(t, nil)
	table := testbackends.TableName()
	store, err := dynamo.Connect(ctx, dynamo.Endpoint{URL: mini.URL, Table: table, CreateTable: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: mini.URL})
	if err != nil {
		t.Fatal(err)
	}
	return store, client, table, map[string]string{envStore: storeDynamoDB, envTable: table, envEndpoint: mini.URL}
}

// putTickets puts tickets as a board file import does (the store's batch
// put, with their word items), each new.
func putTickets(t *testing.T, store *dynamo.Store, tickets ...board.Ticket) {
	t.Helper()
	items := make([]board.TransferredItem, len(tickets))
	for i := range tickets {
		items[i] = board.TransferredItem{Ticket: &tickets[i]}
	}
	outs, err := store.PutBatch(context.Background(), items, time.Now(), true)
	if err != nil || len(outs) != len(items) || slices.ContainsFunc(outs, func(o board.PutOutcome) bool { return o != board.Added }) {
		t.Fatalf("putting %d tickets: %v, %v", len(items), outs, err)
	}
}

// reindex-words replaces the items the earlier index made of Japanese text
// (a run as one word, found only by its beginning) by the run's pairs.
func TestReindexWordsJapanese(t *testing.T) {
	ctx := context.Background()
	store, client, table, env := newReindexTable(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tk := board.Ticket{ID: "inbox-1", Workspace: "inbox", Number: 1, Title: "LED点滅の記事案", Body: "ブログ記事の下書き",
		Status: board.StatusCandidate, Priority: board.PriorityNormal, Tags: []string{}, Links: []board.Link{}, CreatedBy: "ai:x", CreatedAt: now, UpdatedAt: now, Version: 1}
	putTickets(t, store, tk)
	// As the earlier index wrote it: no pair, each run one word.
	partition := func(pk string) []map[string]types.AttributeValue {
		out, err := client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Items
	}
	for _, w := range board.Words(tk.Title + " " + tk.Body) {
		for _, item := range partition("S#inbox#" + w) {
			if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const inverted1 = "9999999999999999998"
	earlier := map[string]string{"S#inbox#le": "led点滅の記事案#0" + inverted1, "S#inbox#ブロ": "ブログ記事の下書き#1" + inverted1}
	for pk, sk := range earlier {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func(q string) int {
		page, err := store.ListTickets(ctx, board.TicketQuery{Workspace: "inbox", Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Tickets)
	}
	if found("記事") != 0 || found("下書き") != 0 {
		t.Fatal("the ticket is found by its pairs before reindexing")
	}
	var stdout, stderr bytes.Buffer
	cmd := command{args: []string{"reindex-words"}, stdout: &stdout, stderr: &stderr, getenv: mapEnv(env)}
	if code := cmd.run(ctx); code != exitOK || !strings.Contains(stderr.String(), "2 items of the earlier index deleted") {
		t.Fatalf("reindex-words: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	for _, q := range []string{"記事", "下書き", "LED点滅", "記事案", "ブログ"} {
		if found(q) != 1 {
			t.Errorf("after reindex-words %q does not find the ticket", q)
		}
	}
	for pk, sk := range earlier {
		for _, item := range partition(pk) {
			if item["sk"].(*types.AttributeValueMemberS).Value == sk {
				t.Errorf("the earlier item %s %s is still there", pk, sk)
			}
		}
	}
}
