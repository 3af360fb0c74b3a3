package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
)

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
