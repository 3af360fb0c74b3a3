package main

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"
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
