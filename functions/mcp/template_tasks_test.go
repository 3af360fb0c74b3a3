package main

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

// The resources that run long imports (docs/tasks.md): the worker
// function, the state machine, and what the MCP function may do with it.
const (
	stateMachineResource = "TasksStateMachine"
	workerResource       = "WorkerFunction"
	definitionFile       = "infra/statemachine.asl.json"
)

// named is the resource called name, of type typ.
func (tp template) named(t *testing.T, name, typ string) resource {
	t.Helper()
	r, ok := tp.doc["Resources"].(map[string]any)[name].(map[string]any)
	if !ok || str(get(r, "Type")) != typ {
		t.Fatalf("template.yaml has no %s of type %s", name, typ)
	}
	props, _ := get(r, "Properties").(map[string]any)
	return resource{name: name, raw: r, props: props}
}

func TestTemplateRunsTasks(t *testing.T) {
	tpl := loadTemplate(t)
	table := tpl.resource(t, "AWS::DynamoDB::Table")
	worker := tpl.named(t, workerResource, "AWS::Serverless::Function")
	sm := tpl.named(t, stateMachineResource, "AWS::Serverless::StateMachine")

	t.Run("worker", func(t *testing.T) {
		p := worker.props
		if str(p["Runtime"]) != "provided.al2023" || str(p["Handler"]) != "bootstrap" || !reflect.DeepEqual(p["Architectures"], []any{"arm64"}) {
			t.Errorf("worker Runtime/Handler/Architectures = %v/%v/%v", p["Runtime"], p["Handler"], p["Architectures"])
		}
		makefile, _ := os.ReadFile("../../Makefile")
		if str(get(worker.raw, "Metadata", "BuildMethod")) != "makefile" || !regexp.MustCompile(`\nbuild-WorkerFunction:\n.*\./functions/worker`).Match(makefile) {
			t.Error("the worker is not built by `make build-WorkerFunction` from ./functions/worker")
		}
		vars, _ := get(p, "Environment", "Variables").(map[string]any)
		if keys := sortedKeys(vars); !slices.Equal(keys, []string{"LEDGER_BASE_URL", "LEDGER_DYNAMODB_SERIALIZE_WRITES", "LEDGER_RETENTION", "LEDGER_TABLE"}) {
			t.Errorf("worker environment = %v, want what functions/worker reads", keys)
		}
		if get(vars["LEDGER_TABLE"], "Ref") != table.name {
			t.Errorf("worker LEDGER_TABLE = %v, want !Ref %s", vars["LEDGER_TABLE"], table.name)
		}
		for _, pol := range list(p["Policies"]) {
			for _, st := range list(get(pol, "Statement")) {
				if r := get(st, "Resource", "Fn::GetAtt"); !reflect.DeepEqual(r, []any{table.name, "Arn"}) {
					t.Errorf("worker policy statement on %v, want only the table", get(st, "Resource"))
				}
			}
		}
	})

	t.Run("state machine", func(t *testing.T) {
		p := sm.props
		if str(p["Type"]) != "STANDARD" || str(p["DefinitionUri"]) != definitionFile {
			t.Errorf("state machine Type/DefinitionUri = %v/%v, want STANDARD/%s", p["Type"], p["DefinitionUri"], definitionFile)
		}
		subs, _ := p["DefinitionSubstitutions"].(map[string]any)
		if !reflect.DeepEqual(get(subs["WorkerFunctionArn"], "Fn::GetAtt"), []any{workerResource, "Arn"}) {
			t.Errorf("WorkerFunctionArn = %v, want the worker's ARN", subs["WorkerFunctionArn"])
		}
		def, err := os.ReadFile("../../" + definitionFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\$\{(\w+)\}`).FindAllStringSubmatch(string(def), -1) {
			if _, ok := subs[m[1]]; !ok {
				t.Errorf("the definition uses ${%s}, which DefinitionSubstitutions does not set", m[1])
			}
		}
		pols := list(p["Policies"])
		if len(pols) != 1 || get(pols[0], "LambdaInvokePolicy", "FunctionName", "Ref") != workerResource {
			t.Errorf("state machine policies = %v, want only LambdaInvokePolicy on the worker", pols)
		}
		var asl struct {
			States map[string]struct {
				Type  string
				Retry []struct{ ErrorEquals []string }
				Catch []struct {
					ErrorEquals []string
					Next        string
				}
				Next string
			}
		}
		if err := json.Unmarshal(def, &asl); err != nil {
			t.Fatal(err)
		}
		run := asl.States["RunChunks"]
		if len(run.Retry) == 0 || !slices.Contains(run.Retry[0].ErrorEquals, "Transient") {
			t.Errorf("RunChunks retries %v, want the worker's Transient errors", run.Retry)
		}
		if len(run.Catch) != 1 || !slices.Equal(run.Catch[0].ErrorEquals, []string{"States.ALL"}) || asl.States[run.Catch[0].Next].Type != "Task" ||
			asl.States[asl.States[run.Catch[0].Next].Next].Type != "Fail" {
			t.Errorf("RunChunks catches %v, want every error sent to a task that marks the task failed, then a Fail state", run.Catch)
		}
	})

	// The board cancels tasks too (StopExecution): both builds may.
	for _, name := range []string{agentsResource, webResource} {
		t.Run(name+" starts and stops executions", func(t *testing.T) { checkStartsAndStops(t, tpl.named(t, name, "AWS::Serverless::Function")) })
	}
}

// checkStartsAndStops checks that a function is given the state machine
// and may start its executions and stop them, and nothing else of it.
func checkStartsAndStops(t *testing.T, fn resource) {
	t.Helper()
	vars, _ := get(fn.props, "Environment", "Variables").(map[string]any)
	if get(vars[envStateMachine], "Ref") != stateMachineResource {
		t.Errorf("%s = %v, want !Ref %s", envStateMachine, vars[envStateMachine], stateMachineResource)
	}
	actions := map[string]any{}
	for _, pol := range list(fn.props["Policies"]) {
		for _, st := range list(get(pol, "Statement")) {
			for _, a := range list(get(st, "Action")) {
				if s := str(a); len(s) > 7 && s[:7] == "states:" {
					actions[s] = get(st, "Resource")
				}
			}
		}
	}
	if len(actions) != 2 || get(actions["states:StartExecution"], "Ref") != stateMachineResource {
		t.Errorf("states actions = %v, want StartExecution on the state machine and StopExecution on its executions", actions)
	}
	if sub := str(get(actions["states:StopExecution"], "Fn::Sub")); !regexp.MustCompile(`:execution:\$\{` + stateMachineResource + `\.Name\}:\*$`).MatchString(sub) {
		t.Errorf("StopExecution resource = %q, want the state machine's executions only", sub)
	}
}

const indexerResource = "IndexerFunction"

// The word index's stream consumer (functions/indexer, docs/dynamodb.md
// "Search") is deployed as the code needs it: the table streams both
// images, the consumer reads that stream with the retry and failure
// settings it relies on, only ticket items reach it, it may write word
// items, and the MCP function leaves that work to it.
func TestTemplateIndexesWords(t *testing.T) {
	tpl := loadTemplate(t)
	table := tpl.resource(t, "AWS::DynamoDB::Table")
	fn := tpl.named(t, indexerResource, "AWS::Serverless::Function")
	mcpFn := tpl.named(t, "McpFunction", "AWS::Serverless::Function")

	if got := str(get(table.props, "StreamSpecification", "StreamViewType")); got != string(dynamo.StreamViewType) {
		t.Errorf("the table's StreamViewType = %q, want %q", got, dynamo.StreamViewType)
	}
	if v := get(mcpFn.props, "Environment", "Variables", envWordsByStream); str(v) != "1" {
		t.Errorf("McpFunction %s = %v, want \"1\": the consumer does what does not fit a transaction", envWordsByStream, v)
	}
	if cfg, err := loadConfig(mapEnv(map[string]string{envWordsByStream: "1"})); err != nil || !cfg.WordsByStream {
		t.Errorf("%s=1 gives WordsByStream=%v (%v)", envWordsByStream, cfg.WordsByStream, err)
	}

	p := fn.props
	if str(p["Runtime"]) != "provided.al2023" || str(p["Handler"]) != "bootstrap" || str(get(fn.raw, "Metadata", "BuildMethod")) != "makefile" {
		t.Errorf("the indexer is not built like the other functions: %v", p)
	}
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(makefile), "\nbuild-"+indexerResource+":\n\tGOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/indexer\n") {
		t.Errorf("Makefile has no build-%s target building ./functions/indexer", indexerResource)
	}
	if ref := get(p, "Environment", "Variables", "LEDGER_TABLE", "Ref"); ref != table.name {
		t.Errorf("the indexer's LEDGER_TABLE = %v, want !Ref %s", ref, table.name)
	}

	var actions []string
	for _, st := range list(get(list(p["Policies"])[0], "Statement")) {
		for _, a := range list(get(st, "Action")) {
			actions = append(actions, str(a))
		}
	}
	slices.Sort(actions)
	if want := []string{"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:PutItem"}; !slices.Equal(actions, want) {
		t.Errorf("the indexer may %v, want %v (open the store, write word items)", actions, want)
	}

	events := get(p, "Events").(map[string]any)
	if len(events) != 1 {
		t.Fatalf("the indexer has events %v, want the table's stream only", events)
	}
	for _, ev := range events {
		ep := get(ev, "Properties").(map[string]any)
		if str(get(ev, "Type")) != "DynamoDB" || !slices.Equal(list(get(ep, "Stream", "Fn::GetAtt")), []any{table.name, "StreamArn"}) {
			t.Errorf("event %v is not the table's stream", ev)
		}
		if get(ep, "BisectBatchOnFunctionError") != true || !slices.Contains(list(ep["FunctionResponseTypes"]), any("ReportBatchItemFailures")) {
			t.Errorf("the stream event does not bisect and take reported failures (the handler reports the first failed record): %v", ep)
		}
		if str(get(ep, "DestinationConfig", "OnFailure", "Type")) != "SQS" {
			t.Errorf("the stream event has no failure queue: %v", ep)
		}
		if n, ok := get(ep, "MaximumRetryAttempts").(int); !ok || n < 1 {
			t.Errorf("MaximumRetryAttempts = %v, want a bound", get(ep, "MaximumRetryAttempts"))
		}
		checkTicketFilter(t, ep)
	}
	for _, name := range []string{"IndexerFunctionErrorsAlarm", "IndexerIteratorAgeAlarm", "IndexerFailuresAlarm"} {
		tpl.named(t, name, "AWS::CloudWatch::Alarm")
	}
}

// checkTicketFilter: the stream event's filter passes exactly the keys the
// consumer takes for a ticket's item.
func checkTicketFilter(t *testing.T, ep map[string]any) {
	t.Helper()
	filters := list(get(ep, "FilterCriteria", "Filters"))
	if len(filters) != 1 {
		t.Fatalf("FilterCriteria = %v, want one pattern", ep["FilterCriteria"])
	}
	var pattern struct {
		Dynamodb struct {
			Keys struct {
				PK struct{ S []struct{ Prefix string } } `json:"pk"`
				SK struct{ S []string }                  `json:"sk"`
			}
		} `json:"dynamodb"`
	}
	if err := json.Unmarshal([]byte(str(get(filters[0], "Pattern"))), &pattern); err != nil {
		t.Fatalf("filter pattern: %v", err)
	}
	keys := pattern.Dynamodb.Keys
	if len(keys.PK.S) != 1 || len(keys.SK.S) != 1 {
		t.Fatalf("filter pattern keys = %+v, want one pk prefix and one sk", keys)
	}
	image := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk},
			"doc": &types.AttributeValueMemberS{Value: `{"id":"inbox-1","workspace":"inbox","title":"x"}`}, "num": &types.AttributeValueMemberN{Value: "1"}}
	}
	if tk, err := dynamo.TicketFromImage(image(keys.PK.S[0].Prefix+"inbox-1", keys.SK.S[0])); err != nil || tk == nil {
		t.Errorf("an item the filter passes is not a ticket to the consumer: %v, %v", tk, err)
	}
	if tk, _ := dynamo.TicketFromImage(image("R#ai:x#r1", keys.SK.S[0])); tk != nil {
		t.Error("the consumer takes a request record for a ticket")
	}
}
