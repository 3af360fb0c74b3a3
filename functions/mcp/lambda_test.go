package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	miniserver "github.com/truora/minidyn/server"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/lambdatest"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

const (
	lamDomain = "abc123def4.execute-api.eu-west-1.amazonaws.com"
	lamLegacy = "2025-11-25"         // initialize handshake
	lamModern = "2026-07-28"         // server/discover, per-request _meta
	lamPerson = "human:" + lamHandle // the signed-in test person (lamSignIn)
	lamAuthor = "ai:claude"          // the agent whose token the MCP calls carry (lamMakeToken)
	// lamPrincipal is the agent's ledger namespace: ai:claude for the person.
	lamPrincipal = lamAuthor + "|" + lamPerson
)

// lamInvoke delivers one API Gateway event to a function: in-process
// (lambdaFunction.Handle) or through the runtime emulator.
type lamInvoke func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// lamRPCEvent is a JSON-RPC request to /mcp as API Gateway delivers it, with
// the headers and _meta the revision asks for.
func lamRPCEvent(version string, id int, method string, params map[string]any) events.APIGatewayV2HTTPRequest {
	if params == nil {
		params = map[string]any{}
	}
	h := map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream"}
	lamCredential(h)
	if method != "initialize" {
		h["mcp-protocol-version"] = version
	}
	if version >= lamModern {
		h["mcp-method"] = method
		if name, ok := params["name"].(string); ok && method == "tools/call" {
			h["mcp-name"] = name
		}
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "lambda-test", "version": "1"},
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/mcp", h, body)
}

type lamRPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type lamReply struct {
	HTTP   events.APIGatewayV2HTTPResponse
	ID     json.RawMessage
	Result json.RawMessage
	Error  *lamRPCError
}

// lamSend invokes ev and decodes the JSON-RPC answer (when there is one).
func lamSend(t *testing.T, invoke lamInvoke, ev events.APIGatewayV2HTTPRequest) lamReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := invoke(ctx, ev)
	if err != nil {
		t.Fatalf("%s %s: %v", ev.RequestContext.HTTP.Method, ev.RawPath, err)
	}
	r := lamReply{HTTP: resp}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *lamRPCError    `json:"error"`
	}
	if json.Unmarshal([]byte(resp.Body), &msg) == nil {
		r.ID, r.Result, r.Error = msg.ID, msg.Result, msg.Error
	}
	return r
}

// lamRPC sends one request that must succeed at the HTTP level (200, JSON).
func lamRPC(t *testing.T, invoke lamInvoke, version, method string, params map[string]any) lamReply {
	t.Helper()
	r := lamSend(t, invoke, lamRPCEvent(version, 7, method, params))
	if r.HTTP.StatusCode != http.StatusOK || !strings.HasPrefix(lamHeader(r.HTTP, "Content-Type"), "application/json") {
		t.Fatalf("%s: HTTP %d %v %s, want 200 JSON", method, r.HTTP.StatusCode, r.HTTP.Headers, r.HTTP.Body)
	}
	if string(r.ID) != "7" {
		t.Fatalf("%s: answered id %s, want 7: %s", method, r.ID, r.HTTP.Body)
	}
	return r
}

// lamTool calls a tool; isError reports a tool error, whose text is returned.
func lamTool[T any](t *testing.T, invoke lamInvoke, version, tool string, args map[string]any) (out T, isError bool, text string) {
	t.Helper()
	r := lamRPC(t, invoke, version, "tools/call", map[string]any{"name": tool, "arguments": args})
	if r.Error != nil {
		t.Fatalf("%s: protocol error %+v", tool, r.Error)
	}
	var res struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, r.Result)
	}
	if len(res.Content) > 0 {
		text = res.Content[0].Text
	}
	if !res.IsError {
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			t.Fatalf("%s: structured result: %v: %s", tool, err, r.Result)
		}
	}
	return out, res.IsError, text
}

// lamOK calls a tool that must succeed.
func lamOK[T any](t *testing.T, invoke lamInvoke, version, tool string, args map[string]any) T {
	t.Helper()
	out, isErr, text := lamTool[T](t, invoke, version, tool, args)
	if isErr {
		t.Fatalf("%s(%v): tool error: %s", tool, args, text)
	}
	return out
}

func lamHeader(resp events.APIGatewayV2HTTPResponse, name string) string {
	for k, v := range resp.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// The emulator tests (emulator_test.go) are built only with -tags
// lambdaemulator: this says when a run left them out.
func TestLambdaEmulatorTestsAreBuilt(t *testing.T) { lambdatest.NeedEmulatorTests(t) }

// The IAM policy in template.yaml allows every request the function sends
// to DynamoDB, as IAM sees it (a transaction is checked item by item), and
// nothing it never sends. The function runs in-process on minidyn behind a
// proxy that records each request, driven through every tool.
func TestLambdaPolicyCoversStoreRequests(t *testing.T) {
	allowed := templatePolicy(t)

	mini := httptest.NewServer(miniserver.NewServer())
	defer mini.Close()
	testbackends.FakeAWSCredentials(t)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	const table = "policy-test"
	ctx := context.Background()
	proxy, err := lambdatest.StartDynamoProxy(mini.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	var (
		mu       sync.Mutex
		observed = map[string]bool{}
	)
	proxy.Observe = func(op string, body []byte) {
		for _, a := range iamActions(t, op, body, table) {
			mu.Lock()
			observed[a] = true
			mu.Unlock()
		}
	}
	// The template creates the table; the function never does.
	client, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: proxy.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.CreateTable(ctx, client, table); err != nil {
		t.Fatal(err)
	}
	lamAddPerson(t, ctx, proxy.URL, table)
	mu.Lock()
	clear(observed)
	mu.Unlock()
	// As deployed: the word index's stream consumer writes what does not
	// fit a transaction (template.yaml sets it).
	env := map[string]string{envTable: table, envEndpoint: proxy.URL, envWordsByStream: "1"}
	fn, err := newLambdaFunction(ctx, lambdaGetenv(mapEnv(env)), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	invoke := lamInvoke(fn.Handle)
	lamSignIn(t, invoke)
	lambdaPeopleRequests(t, invoke)
	lambdaLivePoll(t, invoke)
	lamMakeToken(t, invoke) // the tools below run as the agent

	v := lamLegacy
	lamOK[board.WorkspacesResult](t, invoke, v, "list_workspaces", map[string]any{})
	lamOK[json.RawMessage](t, invoke, v, "get_workspace_summary", map[string]any{"workspace": "inbox"})
	args := map[string]any{"request_id": "p-1", "workspace": "inbox", "title": "Policy", "owner": lamAuthor, "tags": []string{"iam"}}
	created := lamOK[board.TicketResult](t, invoke, v, "create_ticket", args)
	if created.Replayed || created.Ticket.URL != "https://"+lamDomain+"/tickets/"+created.Ticket.ID {
		t.Fatalf("created = %+v, want a new ticket linking to the API's own URL", created)
	}
	if again := lamOK[board.TicketResult](t, invoke, v, "create_ticket", args); !again.Replayed || again.Ticket.ID != created.Ticket.ID {
		t.Fatalf("retry = %+v, want a replay of %s", again, created.Ticket.ID)
	}
	id := created.Ticket.ID
	lamOK[board.TicketResult](t, invoke, v, "update_ticket", map[string]any{"request_id": "p-2", "id": id, "title": "Policy, checked"})
	lamOK[board.MoveResult](t, invoke, v, "move_ticket", map[string]any{"request_id": "p-3", "id": id, "status": "doing"})
	lamOK[json.RawMessage](t, invoke, v, "add_note", map[string]any{"request_id": "p-4", "id": id, "body": "looked"})
	lamOK[json.RawMessage](t, invoke, v, "get_ticket", map[string]any{"id": id})
	for _, filter := range []map[string]any{{}, {"status": "doing"}, {"owner": lamAuthor}, {"tag": "iam"}, {"query": "checked"}} {
		filter["workspace"] = "inbox"
		if l := lamOK[board.TicketList](t, invoke, v, "list_tickets", filter); len(l.Tickets) != 1 {
			t.Errorf("list_tickets(%v) = %d tickets, want 1", filter, len(l.Tickets))
		}
	}
	lamOK[json.RawMessage](t, invoke, v, "find_request", map[string]any{"request_id": "p-1"})
	lamOK[json.RawMessage](t, invoke, v, "find_request", map[string]any{"request_id": "never-sent"})
	// An import (small: it ends inside the call) and its task.
	imp := lamOK[board.ImportResult](t, invoke, v, "import_tickets", map[string]any{"request_id": "p-7", "workspace": "inbox",
		"tickets": []map[string]any{{"title": "imported one"}, {"title": "imported two"}}})
	if imp.Status != board.TaskCompleted || imp.Imported != 2 {
		t.Fatalf("import = %+v, want completed with 2 tickets", imp)
	}
	lamOK[json.RawMessage](t, invoke, v, "get_task", map[string]any{"task_id": imp.TaskID})
	lamOK[json.RawMessage](t, invoke, v, "cancel_task", map[string]any{"task_id": imp.TaskID})
	// Refused writes: the reference workspace is read-only for AI (the
	// policy condition), and an invalid one.
	if _, isErr, text := lamTool[json.RawMessage](t, invoke, v, "create_ticket", map[string]any{"request_id": "p-5", "workspace": "reference", "title": "no"}); !isErr ||
		!strings.Contains(text, "read-only for AI") {
		t.Errorf("create_ticket in reference as the agent: isError=%v %q, want the policy refusal", isErr, text)
	}
	if _, isErr, _ := lamTool[json.RawMessage](t, invoke, v, "move_ticket", map[string]any{"request_id": "p-6", "id": id, "status": "nowhere"}); !isErr {
		t.Error("move_ticket to an unknown status succeeded")
	}
	// REST sends what the tools send; and the token is revoked on the board.
	lambdaRESTRequests(t, invoke)
	lamRevokeToken(t, invoke)
	// OAuth: metadata, registration, approval, exchange, refresh, revocation.
	lambdaOAuth(t, invoke)

	mu.Lock()
	defer mu.Unlock()
	var missing, unused []string
	for a := range observed {
		if !allowed[a] {
			missing = append(missing, a)
		}
	}
	for a := range allowed {
		if !observed[a] && unexercised[a] == "" {
			unused = append(unused, a)
		}
	}
	sort.Strings(missing)
	sort.Strings(unused)
	if len(missing) > 0 {
		t.Errorf("the function sends %v, which template.yaml's policy does not allow (it would fail with AccessDenied when deployed)", missing)
	}
	if len(unused) > 0 {
		t.Errorf("template.yaml allows %v, which the function never sent here; remove it, or say in unexercised why it is needed", unused)
	}
	t.Logf("requests seen: %v", slices.Sorted(func(yield func(string) bool) {
		for a := range observed {
			if !yield(a) {
				return
			}
		}
	}))
}

// unexercised are allowed actions the policy test cannot provoke, each
// with the reason the function needs it. None so far: the Store contract's
// ClaimRequest/ReleaseRequest (DeleteItem) serve no tool of this function.
var unexercised = map[string]string{}

// iamActions are the IAM actions a DynamoDB request needs, each with the
// kind of resource it is checked against ("@table" or "@index").
func iamActions(t *testing.T, op string, body []byte, table string) []string {
	var in struct {
		TableName     string
		IndexName     string
		RequestItems  map[string]json.RawMessage
		TransactItems []map[string]struct{ TableName string }
	}
	if err := json.Unmarshal(body, &in); err != nil {
		t.Errorf("%s: %v", op, err)
		return nil
	}
	var out []string
	add := func(action, tbl, index string) {
		if tbl != table {
			t.Errorf("%s on table %q, want only %q", op, tbl, table)
		}
		res := "@table"
		if index != "" {
			res = "@index"
		}
		out = append(out, "dynamodb:"+action+res)
	}
	perItem := map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}
	switch op {
	case "TransactWriteItems", "TransactGetItems":
		for _, item := range in.TransactItems {
			for kind, x := range item {
				add(perItem[kind], x.TableName, "")
			}
		}
	case "BatchGetItem", "BatchWriteItem":
		for tbl := range in.RequestItems {
			add(op, tbl, "")
		}
	default:
		add(op, in.TableName, in.IndexName)
	}
	return out
}

// templatePolicy is what the function's policies allow, as action@table or
// action@index.
func templatePolicy(t *testing.T) map[string]bool {
	tpl := loadTemplate(t)
	fn := tpl.named(t, "McpFunction", "AWS::Serverless::Function")
	table := tpl.resource(t, "AWS::DynamoDB::Table")
	allowed := map[string]bool{}
	for _, pol := range list(fn.props["Policies"]) {
		for _, st := range list(get(pol, "Statement")) {
			if str(get(st, "Effect")) != "Allow" || !strings.HasPrefix(str(list(get(st, "Action"))[0]), "dynamodb:") {
				continue // Step Functions: TestTemplateRunsTasks
			}
			var kinds []string
			res := get(st, "Resource")
			if l, ok := res.([]any); ok {
				for _, r := range l {
					kinds = append(kinds, resourceKind(t, r, table.name))
				}
			} else {
				kinds = append(kinds, resourceKind(t, res, table.name))
			}
			for _, a := range list(get(st, "Action")) {
				for _, k := range kinds {
					allowed[str(a)+k] = true
				}
			}
		}
	}
	return allowed
}

func resourceKind(t *testing.T, r any, table string) string {
	if ga := list(get(r, "Fn::GetAtt")); len(ga) == 2 && ga[0] == table && ga[1] == "Arn" {
		return "@table"
	}
	if sub := str(get(r, "Fn::Sub")); sub == "${"+table+".Arn}/index/*" {
		return "@index"
	}
	t.Errorf("policy resource %v is neither the table nor its indexes", r)
	return "@?"
}

var lamCreateArgs = map[string]any{"request_id": "lambda-e2e-1", "workspace": "inbox", "title": "Deploy behind API Gateway",
	"body": "Runs as **Lambda**.", "priority": "high", "tags": []string{"deploy"}}

func lamInitParams() map[string]any {
	return map[string]any{"protocolVersion": lamLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "lambda-test", "version": "1"}}
}

// lambdaEndToEnd is the spec's sequence against one function instance.
func lambdaEndToEnd(t *testing.T, invoke lamInvoke) {
	// initialize (2025-11-25): stateless, so no session id.
	r := lamRPC(t, invoke, lamLegacy, "initialize", lamInitParams())
	var init struct {
		ProtocolVersion string
		ServerInfo      struct{ Name string }
		Capabilities    map[string]json.RawMessage
		Instructions    string
	}
	if err := json.Unmarshal(r.Result, &init); err != nil || init.ProtocolVersion != lamLegacy || init.ServerInfo.Name != "ticket-ledger" ||
		init.Capabilities["tools"] == nil || !strings.Contains(init.Instructions, "find_request") {
		t.Fatalf("initialize = %s (%v)", r.Result, err)
	}
	if sid := lamHeader(r.HTTP, "Mcp-Session-Id"); sid != "" {
		t.Errorf("initialize returned session %q; the server is stateless", sid)
	}

	// server/discover (2026-07-28).
	r = lamRPC(t, invoke, lamModern, "server/discover", nil)
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
		Meta              struct {
			ServerInfo struct{ Name string } `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
		Capabilities map[string]json.RawMessage
	}
	if err := json.Unmarshal(r.Result, &disc); err != nil || disc.Meta.ServerInfo.Name != "ticket-ledger" || disc.Capabilities["tools"] == nil ||
		!slices.Contains(disc.SupportedVersions, lamModern) {
		t.Fatalf("server/discover = %s (%v)", r.Result, err)
	}

	// tools/list: exactly what the local server lists.
	r = lamRPC(t, invoke, lamLegacy, "tools/list", nil)
	if got, want := lamCanonical(t, r.Result), lamCanonical(t, localToolsList(t)); got != want {
		t.Errorf("tools/list differs from the local server's:\n got %s\nwant %s", got, want)
	}

	// create_ticket twice with one request_id: the second is a replay.
	created := lamOK[board.TicketResult](t, invoke, lamModern, "create_ticket", lamCreateArgs)
	tk := created.Ticket
	if created.Replayed || tk.ID != "inbox-1" || tk.CreatedBy != lamAuthor || tk.Priority != board.PriorityHigh ||
		tk.URL != "https://"+lamDomain+"/tickets/inbox-1" {
		t.Fatalf("created = %+v", created)
	}
	again := lamOK[board.TicketResult](t, invoke, lamModern, "create_ticket", lamCreateArgs)
	if !again.Replayed || again.Ticket.ID != tk.ID || !again.Ticket.CreatedAt.Equal(tk.CreatedAt) {
		t.Fatalf("retry = %+v, want a replay of %s", again, tk.ID)
	}

	// Bad requests.
	bad := func(name string, ev events.APIGatewayV2HTTPRequest, status int, code int, msg string) {
		t.Helper()
		r := lamSend(t, invoke, ev)
		if r.HTTP.StatusCode != status {
			t.Errorf("%s: HTTP %d %s, want %d", name, r.HTTP.StatusCode, r.HTTP.Body, status)
			return
		}
		if code != 0 && (r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, msg)) {
			t.Errorf("%s: body %s, want JSON-RPC error %d mentioning %q", name, r.HTTP.Body, code, msg)
		}
	}
	jsonHeaders := map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream", "mcp-protocol-version": lamLegacy}
	lamCredential(jsonHeaders)
	bad("malformed JSON", lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/mcp", jsonHeaders, []byte(`{"jsonrpc":"2.0","id":1,"method":`)),
		http.StatusBadRequest, 0, "")
	bad("body not UTF-8", lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/mcp", jsonHeaders,
		[]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\xfe\"}}")),
		http.StatusBadRequest, -32700, "not valid UTF-8")
	evil := lamRPCEvent(lamLegacy, 1, "tools/list", nil)
	evil.Headers["origin"] = "https://evil.example"
	bad("foreign Origin", evil, http.StatusForbidden, -32600, "not allowed")
	bad("unknown method", lamRPCEvent(lamLegacy, 1, "tickets/burn", nil), http.StatusOK, -32601, "")
	bad("unknown route", lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/nowhere", nil, nil), http.StatusNotFound, 0, "")

	// The agent's token is bound by ai_policy: reference is read-only for AI.
	if _, isErr, text := lamTool[json.RawMessage](t, invoke, lamModern, "create_ticket",
		map[string]any{"request_id": "lambda-e2e-ro", "workspace": "reference", "title": "no"}); !isErr || !strings.Contains(text, "read-only for AI") {
		t.Errorf("create_ticket in reference as the agent: isError=%v %q, want the policy refusal", isErr, text)
	}

	// An invalid write is a tool error that writes nothing.
	_, isErr, text := lamTool[json.RawMessage](t, invoke, lamLegacy, "create_ticket",
		map[string]any{"request_id": "lambda-e2e-bad", "workspace": "inbox", "title": ""})
	if !isErr || !strings.Contains(text, "title") {
		t.Errorf("create_ticket with an empty title: isError=%v %q, want a tool error about the title", isErr, text)
	}
	list := lamOK[board.TicketList](t, invoke, lamLegacy, "list_tickets", map[string]any{"workspace": "inbox"})
	if len(list.Tickets) != 1 {
		t.Errorf("inbox holds %d tickets after the refused write, want 1", len(list.Tickets))
	}

	// A notification has no answer: 202 and no body.
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	n := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodPost, "/mcp", jsonHeaders, note))
	if n.HTTP.StatusCode != http.StatusAccepted || n.HTTP.Body != "" {
		t.Errorf("notification: HTTP %d %q, want 202 and no body", n.HTTP.StatusCode, n.HTTP.Body)
	}
	// Methods the stateless server does not serve are refused, not failed.
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		h := map[string]string{"accept": "application/json, text/event-stream", "mcp-protocol-version": lamLegacy}
		lamCredential(h)
		r := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, m, "/mcp", h, nil))
		if r.HTTP.StatusCode < 400 || r.HTTP.StatusCode >= 500 {
			t.Errorf("%s /mcp: HTTP %d %q, want a 4xx refusal", m, r.HTTP.StatusCode, r.HTTP.Body)
		}
	}

	// Health, for the API's GET /healthz route.
	h := lamSend(t, invoke, lambdatest.HTTPEvent(lamDomain, http.MethodGet, "/healthz", nil, nil))
	if h.HTTP.StatusCode != http.StatusOK || h.HTTP.Body != `{"status":"ok","store":"ok"}` {
		t.Errorf("GET /healthz = %d %q, want 200 with the store ok", h.HTTP.StatusCode, h.HTTP.Body)
	}
}

// localToolsList is tools/list from the local server (SQLite), for
// comparison: the Lambda serves the same handler.
func localToolsList(t *testing.T) json.RawMessage {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/ledger.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg, err := loadConfig(mapEnv(map[string]string{envAuthor: "ai:lambda-test"}))
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(cfg, st, slog.New(slog.DiscardHandler), mcpserver.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := lamRPCEvent(lamLegacy, 7, "tools/list", nil)
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(ev.Body))
	for k, v := range ev.Headers {
		if k != "authorization" && k != "cookie" { // credentials of the Lambda's table
			req.Header.Set(k, v)
		}
	}
	req.Host = "127.0.0.1:8080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var msg struct{ Result json.RawMessage }
	if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil || msg.Result == nil {
		t.Fatalf("local tools/list: %d %s", rec.Code, rec.Body)
	}
	return msg.Result
}

func lamCanonical(t *testing.T, raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// lamClient connects a go-sdk client whose HTTP requests travel as API
// Gateway events through the emulator.
func lamClient(t *testing.T, invoke lamInvoke, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "lambda-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   "https://" + lamDomain + "/mcp",
		HTTPClient: &http.Client{Transport: eventTransport{invoke}},
		MaxRetries: -1, DisableStandaloneSSE: true,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return cs
}

// eventTransport is API Gateway in miniature: HTTP request in, event to
// the function, its response back as HTTP.
type eventTransport struct{ invoke lamInvoke }

func (tr eventTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	h := map[string]string{}
	for k, vs := range req.Header {
		h[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	lamCredential(h)
	resp, err := tr.invoke(req.Context(), lambdatest.HTTPEvent(req.URL.Host, req.Method, req.URL.Path, h, body))
	if err != nil {
		return nil, err
	}
	out := &http.Response{StatusCode: resp.StatusCode, Status: http.StatusText(resp.StatusCode), Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(resp.Body)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	for k, v := range resp.Headers {
		out.Header.Set(k, v)
	}
	return out, nil
}
