package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"gopkg.in/yaml.v3"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/testbackends"
)

// The SAM template and the code cannot drift: the table is the one
// internal/dynamo creates, the function's environment is the one this
// command reads, and the defaults are ones it accepts.
func TestTemplateMatchesCode(t *testing.T) {
	tpl := loadTemplate(t)
	table := tpl.resource(t, "AWS::DynamoDB::Table")
	fn := tpl.named(t, agentsResource, "AWS::Serverless::Function")
	webFn := tpl.named(t, webResource, "AWS::Serverless::Function")
	api := tpl.resource(t, "AWS::Serverless::HttpApi")

	t.Run("table", func(t *testing.T) {
		want := dynamo.CreateTableInput("unused")
		p := table.props
		if got := str(p["BillingMode"]); got != string(want.BillingMode) {
			t.Errorf("BillingMode = %q, want %q", got, want.BillingMode)
		}
		var wantKeys []string
		for _, k := range want.KeySchema {
			wantKeys = append(wantKeys, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
		}
		if got := keySchema(p["KeySchema"]); !slices.Equal(got, wantKeys) {
			t.Errorf("KeySchema = %v, want %v", got, wantKeys)
		}
		var wantAttrs []string
		for _, a := range want.AttributeDefinitions {
			wantAttrs = append(wantAttrs, aws.ToString(a.AttributeName)+" "+string(a.AttributeType))
		}
		var gotAttrs []string
		for _, a := range list(p["AttributeDefinitions"]) {
			gotAttrs = append(gotAttrs, str(get(a, "AttributeName"))+" "+str(get(a, "AttributeType")))
		}
		sort.Strings(wantAttrs)
		sort.Strings(gotAttrs)
		if !slices.Equal(gotAttrs, wantAttrs) {
			t.Errorf("AttributeDefinitions = %v, want %v", gotAttrs, wantAttrs)
		}
		wantGSI := map[string]string{}
		for _, g := range want.GlobalSecondaryIndexes {
			var ks []string
			for _, k := range g.KeySchema {
				ks = append(ks, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
			}
			wantGSI[aws.ToString(g.IndexName)] = fmt.Sprintf("%v projection %s %v", ks, g.Projection.ProjectionType, g.Projection.NonKeyAttributes)
		}
		gotGSI := map[string]string{}
		for _, g := range list(p["GlobalSecondaryIndexes"]) {
			var nonKey []string
			for _, a := range list(get(g, "Projection", "NonKeyAttributes")) {
				nonKey = append(nonKey, str(a))
			}
			gotGSI[str(get(g, "IndexName"))] = fmt.Sprintf("%v projection %s %v", keySchema(get(g, "KeySchema")), str(get(g, "Projection", "ProjectionType")), nonKey)
		}
		if !reflect.DeepEqual(gotGSI, wantGSI) {
			t.Errorf("GlobalSecondaryIndexes =\n %v\nwant\n %v", gotGSI, wantGSI)
		}
		if got, want := str(get(p, "TimeToLiveSpecification", "AttributeName")), ttlAttribute(t); got != want {
			t.Errorf("TTL attribute = %q, want %q (the one dynamo.CreateTable enables)", got, want)
		}
		if get(p, "TimeToLiveSpecification", "Enabled") != true {
			t.Error("TTL is not enabled")
		}
		if get(p, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled") != true {
			t.Error("point-in-time recovery is not enabled")
		}
		param := tpl.refParam(t, p["DeletionProtectionEnabled"])
		if vals := list(param["AllowedValues"]); len(vals) != 2 || str(param["Default"]) != "true" {
			t.Errorf("DeletionProtectionEnabled parameter = %v, want true|false defaulting to true", param)
		}
	})

	// Two builds of one server (Makefile build-McpFunction, build-WebFunction):
	// each is checked as the function it is; which paths reach which is
	// TestTemplateRoutesFollowTheBuilds's.
	for _, fn := range []resource{fn, webFn} {
		t.Run(fn.name, func(t *testing.T) { checkServerFunction(t, tpl, table, api, fn) })
	}
	t.Run("web function is the agents' function's twin", func(t *testing.T) {
		for _, k := range []string{"Runtime", "Handler", "Architectures", "MemorySize", "Timeout", "Environment", "Policies"} {
			if !reflect.DeepEqual(webFn.props[k], fn.props[k]) {
				t.Errorf("%s %s = %v, %s's = %v: one server in two builds, with the same store, tasks and permissions", webFn.name, k, webFn.props[k], fn.name, fn.props[k])
			}
		}
		if get(webFn.props, "LoggingConfig", "LogGroup", "Ref") == get(fn.props, "LoggingConfig", "LogGroup", "Ref") {
			t.Errorf("%s logs to %s's log group: each function has its own", webFn.name, fn.name)
		}
	})

	t.Run("env.json", func(t *testing.T) {
		b, err := os.ReadFile("../../infra/env.json")
		if err != nil {
			t.Fatal(err)
		}
		var envFile map[string]map[string]string
		if err := json.Unmarshal(b, &envFile); err != nil {
			t.Fatal(err)
		}
		if keys := sortedKeys(envFile); !slices.Equal(keys, []string{agentsResource, webResource}) {
			t.Fatalf("infra/env.json has entries for %v, want %s and %s", keys, agentsResource, webResource)
		}
		if !reflect.DeepEqual(envFile[agentsResource], envFile[webResource]) {
			t.Errorf("infra/env.json gives %s %v and %s %v: under sam local both builds share one table", agentsResource, envFile[agentsResource], webResource, envFile[webResource])
		}
		vars := envFile[fn.name]
		if keys, want := sortedKeys(vars), sortedDeployedEnv(); !slices.Equal(keys, want) {
			t.Errorf("infra/env.json sets %v; sam local only overrides what the template declares: %v", keys, want)
		}
		cfg, err := loadConfig(lambdaGetenv(mapEnv(vars)))
		if err != nil {
			t.Fatalf("infra/env.json refused: %v", err)
		}
		if cfg.Store != storeDynamoDB || cfg.Endpoint == "" || !cfg.CreateTable || !cfg.SerializeWrites {
			t.Errorf("local config = %+v, want DynamoDB at a local endpoint (moto: writes serialized), table created", cfg)
		}
	})

	t.Run("outputs", func(t *testing.T) {
		url := str(get(tpl.doc, "Outputs", "McpUrl", "Value", "Fn::Sub"))
		if !strings.Contains(url, "${"+api.name+"}") || !strings.HasSuffix(url, "/mcp") {
			t.Errorf("McpUrl = %q, want the HttpApi's URL ending in /mcp", url)
		}
	})
}

// checkServerFunction checks one build of the server on Lambda against the
// code: how it is built and run, its environment, and that its events are
// on the API.
func checkServerFunction(t *testing.T, tpl template, table, api, fn resource) {
	t.Helper()
	p := fn.props
	if str(p["Runtime"]) != "provided.al2023" || str(p["Handler"]) != "bootstrap" || !reflect.DeepEqual(p["Architectures"], []any{"arm64"}) {
		t.Errorf("Runtime/Handler/Architectures = %v/%v/%v, want provided.al2023/bootstrap/[arm64]", p["Runtime"], p["Handler"], p["Architectures"])
	}
	if got := str(get(fn.raw, "Metadata", "BuildMethod")); got != "makefile" {
		t.Errorf("Metadata.BuildMethod = %q, want makefile", got)
	}
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(makefile), "\nbuild-"+fn.name+":") {
		t.Errorf("Makefile has no build-%s target, which `sam build` runs", fn.name)
	}

	vars := get(p, "Environment", "Variables").(map[string]any)
	keys := sortedKeys(vars)
	if want := sortedDeployedEnv(); !slices.Equal(keys, want) {
		t.Errorf("function environment = %v, want deployedEnv %v", keys, want)
	}
	read := envReadByConfig()
	for _, k := range keys {
		if !read[k] {
			t.Errorf("template sets %s, which loadConfig never reads", k)
		}
	}
	if got := str(vars[envStore]); got != storeDynamoDB {
		t.Errorf("%s = %q, want %q", envStore, got, storeDynamoDB)
	}
	if ref := get(vars[envTable], "Ref"); ref != table.name {
		t.Errorf("%s = %v, want !Ref %s", envTable, vars[envTable], table.name)
	}
	if got := str(vars[envAuth]); got != string(auth.ModeRequired) {
		t.Errorf("%s = %q, want required: the only mode on Lambda", envAuth, got)
	}
	for _, k := range []string{envRetention, envBaseURL, envAllowedOrigins} {
		tpl.refParam(t, vars[k])
	}

	// The deployed environment, with every parameter at its default,
	// is one the function starts with.
	resolved := map[string]string{}
	for k, v := range vars {
		switch {
		case get(v, "Ref") == table.name:
			resolved[k] = "ticket-ledger-Table-ABC"
		case get(v, "Ref") == stateMachineResource:
			resolved[k] = "arn:aws:states:us-east-1:123456789012:stateMachine:ticket-ledger-Tasks-ABC"
		case get(v, "Ref") != nil:
			resolved[k] = str(tpl.refParam(t, v)["Default"])
		default:
			resolved[k] = str(v)
		}
	}
	cfg, err := loadConfig(lambdaGetenv(mapEnv(resolved)))
	if err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	if cfg.Store != storeDynamoDB || cfg.Auth != auth.ModeRequired || cfg.Retention != ledger.DefaultRetention || cfg.Endpoint != "" || cfg.CreateTable || cfg.SerializeWrites {
		t.Errorf("deployed config = %+v, want DynamoDB on AWS, credentials required, the default retention, no table creation, concurrent writes", cfg)
	}

	for _, ev := range get(p, "Events").(map[string]any) {
		if str(get(ev, "Type")) != "HttpApi" || get(ev, "Properties", "ApiId", "Ref") != api.name {
			t.Errorf("event %v is not on the HttpApi %s", ev, api.name)
		}
	}
}

// envReadByConfig is every variable loadConfig asks for.
// sortedKeys lists a map's keys in order, for comparing variable sets.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedDeployedEnv() []string {
	want := slices.Clone(deployedEnv)
	sort.Strings(want)
	return want
}

func envReadByConfig() map[string]bool {
	read := map[string]bool{}
	loadConfig(func(k string) string { read[k] = true; return "" })
	return read
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// ttlAttribute is the attribute dynamo.CreateTable turns TTL on for, read
// off the wire from a stand-in endpoint (the package does not export it).
func ttlAttribute(t *testing.T) string {
	t.Helper()
	var (
		mu   sync.Mutex
		attr string
	)
	srv := httptest.NewServer(testbackends.WithCRC32(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		reply := func(status int, out string) {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(status)
			io.WriteString(w, out)
		}
		switch op {
		case "CreateTable":
			reply(http.StatusOK, `{"TableDescription":{"TableName":"t","TableStatus":"CREATING"}}`)
		case "DescribeTable":
			reply(http.StatusOK, `{"Table":{"TableName":"t","TableStatus":"ACTIVE"}}`)
		case "UpdateTimeToLive":
			var in struct {
				TimeToLiveSpecification struct{ AttributeName string }
			}
			json.Unmarshal(body, &in)
			mu.Lock()
			attr = in.TimeToLiveSpecification.AttributeName
			mu.Unlock()
			reply(http.StatusOK, fmt.Sprintf(`{"TimeToLiveSpecification":%s}`, mustJSON(in.TimeToLiveSpecification)))
		default:
			reply(http.StatusBadRequest, fmt.Sprintf(`{"__type":"com.amazon.coral.validate#ValidationException","message":"unexpected %s"}`, op))
		}
	})))
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	client, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: srv.URL, Region: "us-east-1",
		Options: []func(*dynamodb.Options){func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }}})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.CreateTable(context.Background(), client, "t"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if attr == "" {
		t.Fatal("dynamo.CreateTable turned on no TTL")
	}
	return attr
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// template is template.yaml decoded to plain maps, lists and scalars, with
// the short intrinsic tags in their long form (!Ref X → {"Ref": X},
// !GetAtt A.B → {"Fn::GetAtt": [A, B]}, !Sub s → {"Fn::Sub": s}).
type template struct{ doc map[string]any }

type resource struct {
	name  string
	raw   map[string]any
	props map[string]any
}

func loadTemplate(t *testing.T) template {
	t.Helper()
	b, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	v, err := plain(&n)
	if err != nil {
		t.Fatal(err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("template.yaml is not a mapping")
	}
	return template{doc: doc}
}

// resource is the one resource of a type.
func (tp template) resource(t *testing.T, typ string) resource {
	t.Helper()
	var found []resource
	for name, r := range tp.doc["Resources"].(map[string]any) {
		if str(get(r, "Type")) == typ {
			props, _ := get(r, "Properties").(map[string]any)
			found = append(found, resource{name: name, raw: r.(map[string]any), props: props})
		}
	}
	if len(found) != 1 {
		t.Fatalf("template.yaml has %d resources of type %s, want 1", len(found), typ)
	}
	return found[0]
}

// refParam is the parameter v refers to with !Ref.
func (tp template) refParam(t *testing.T, v any) map[string]any {
	t.Helper()
	name, _ := get(v, "Ref").(string)
	p, ok := get(tp.doc, "Parameters", name).(map[string]any)
	if !ok {
		t.Fatalf("%v is not a !Ref to a parameter", v)
	}
	return p
}

func plain(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.DocumentNode:
		return plain(n.Content[0])
	case yaml.AliasNode:
		return plain(n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			val, err := plain(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = val
		}
		v = m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			val, err := plain(c)
			if err != nil {
				return nil, err
			}
			l = append(l, val)
		}
		v = l
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!!") || n.Tag == "" {
			if err := n.Decode(&v); err != nil {
				return nil, err
			}
			return v, nil
		}
		v = n.Value
	}
	switch tag := n.Tag; {
	case tag == "!Ref" || tag == "!Condition":
		return map[string]any{strings.TrimPrefix(tag, "!"): v}, nil
	case tag == "!GetAtt":
		if s, ok := v.(string); ok {
			return map[string]any{"Fn::GetAtt": []any{strings.SplitN(s, ".", 2)[0], strings.SplitN(s, ".", 2)[1]}}, nil
		}
		return map[string]any{"Fn::GetAtt": v}, nil
	case strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!"):
		return map[string]any{"Fn::" + strings.TrimPrefix(tag, "!"): v}, nil
	}
	return v, nil
}

// get walks nested maps; nil when a key is missing.
func get(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func list(v any) []any { l, _ := v.([]any); return l }

func keySchema(v any) []string {
	var out []string
	for _, k := range list(v) {
		out = append(out, str(get(k, "AttributeName"))+" "+str(get(k, "KeyType")))
	}
	return out
}
