package main

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
	"github.com/ticket-ledger/ticket-ledger/internal/webhooklambda"
)

const (
	webhookFanoutResource = "WebhookFanoutFunction"
	webhookSenderResource = "WebhookSenderFunction"
	webhookQueueResource  = "WebhookQueue"
	webhookDLQResource    = "WebhookDeadLetters"
)

// The webhooks' AWS path (docs/webhooks.md "On AWS") is deployed as the
// code needs it: the fan-out reads the table's stream, new event items
// only, never dropping a record, and sends to a FIFO queue; the sender
// takes that queue with partial batch failures; the queue has a FIFO
// dead-letter queue; alarms watch the dead letters and the oldest
// message's age; both functions are built by the Makefile and may do what
// they do, and no more.
func TestTemplateDeliversWebhooks(t *testing.T) {
	tpl := loadTemplate(t)
	table := tpl.resource(t, "AWS::DynamoDB::Table")
	fanout := tpl.named(t, webhookFanoutResource, "AWS::Serverless::Function")
	sender := tpl.named(t, webhookSenderResource, "AWS::Serverless::Function")
	queue := tpl.named(t, webhookQueueResource, "AWS::SQS::Queue")
	dlq := tpl.named(t, webhookDLQResource, "AWS::SQS::Queue")
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fn  resource
		pkg string
	}{{fanout, "./functions/webhookfanout"}, {sender, "./functions/webhooksender"}} {
		fn, pkg := c.fn, c.pkg
		p := fn.props
		if str(p["Runtime"]) != "provided.al2023" || str(p["Handler"]) != "bootstrap" || str(get(fn.raw, "Metadata", "BuildMethod")) != "makefile" {
			t.Errorf("%s is not built like the other functions: %v", fn.name, p)
		}
		if !strings.Contains(string(makefile), "\nbuild-"+fn.name+":\n\tGOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap "+pkg+"\n") {
			t.Errorf("Makefile has no build-%s target building %s", fn.name, pkg)
		}
		env := get(p, "Environment", "Variables")
		if get(env, "LEDGER_TABLE", "Ref") != table.name || get(env, "LEDGER_WEBHOOK_QUEUE_URL", "Ref") != queue.name {
			t.Errorf("%s's environment %v does not name the table and the queue", fn.name, env)
		}
	}

	// The fan-out's stream mapping.
	fe := get(fanout.props, "Events").(map[string]any)
	if len(fe) != 1 {
		t.Fatalf("the fan-out has events %v, want the table's stream only", fe)
	}
	for _, ev := range fe {
		ep := get(ev, "Properties").(map[string]any)
		if str(get(ev, "Type")) != "DynamoDB" || !slices.Equal(list(get(ep, "Stream", "Fn::GetAtt")), []any{table.name, "StreamArn"}) {
			t.Errorf("event %v is not the table's stream", ev)
		}
		if ep["MaximumRetryAttempts"] != -1 || ep["MaximumRecordAgeInSeconds"] != -1 {
			t.Errorf("the fan-out's mapping may drop records: MaximumRetryAttempts %v, MaximumRecordAgeInSeconds %v; want -1 and -1",
				ep["MaximumRetryAttempts"], ep["MaximumRecordAgeInSeconds"])
		}
		if !slices.Contains(list(ep["FunctionResponseTypes"]), any("ReportBatchItemFailures")) {
			t.Errorf("the fan-out's mapping does not take reported failures: %v", ep)
		}
		filters := list(get(ep, "FilterCriteria", "Filters"))
		var got, want any
		if len(filters) != 1 || json.Unmarshal([]byte(str(get(filters[0], "Pattern"))), &got) != nil ||
			json.Unmarshal([]byte(dynamo.EventStreamPattern), &want) != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("the fan-out's filter %v is not dynamo.EventStreamPattern %s", filters, dynamo.EventStreamPattern)
		}
	}

	// The queues.
	for _, q := range []resource{queue, dlq} {
		if q.props["FifoQueue"] != true || q.props["MessageRetentionPeriod"] != 1209600 {
			t.Errorf("%s is not FIFO keeping messages 14 days: %v", q.name, q.props)
		}
	}
	if queue.props["ContentBasedDeduplication"] == true {
		t.Error("the queue deduplicates by content; the fan-out names each delivery (subscription and event)")
	}
	if !slices.Equal(list(get(queue.props, "RedrivePolicy", "deadLetterTargetArn", "Fn::GetAtt")), []any{dlq.name, "Arn"}) {
		t.Errorf("the queue's dead letters go to %v, want %s", get(queue.props, "RedrivePolicy"), dlq.name)
	}
	if vt, _ := queue.props["VisibilityTimeout"].(int); vt < 6*sender.props["Timeout"].(int) {
		t.Errorf("the queue's visibility timeout %v is under six times the sender's timeout %v", vt, sender.props["Timeout"])
	}

	// The sender's queue mapping and settings.
	se := get(sender.props, "Events").(map[string]any)
	if len(se) != 1 {
		t.Fatalf("the sender has events %v, want the queue only", se)
	}
	for _, ev := range se {
		ep := get(ev, "Properties").(map[string]any)
		if str(get(ev, "Type")) != "SQS" || !slices.Equal(list(get(ep, "Queue", "Fn::GetAtt")), []any{queue.name, "Arn"}) ||
			!slices.Contains(list(ep["FunctionResponseTypes"]), any("ReportBatchItemFailures")) {
			t.Errorf("the sender's event %v is not the queue with partial batch failures", ev)
		}
	}
	senv := get(sender.props, "Environment", "Variables").(map[string]any)
	if _, err := webhook.LoadSettings(func(k string) string { return str(senv[k]) }); err != nil {
		t.Errorf("the sender's settings do not parse: %v", err)
	}
	if str(senv[webhook.EnvAllowPrivate]) != "0" {
		t.Errorf("the deployed sender has %s=%v", webhook.EnvAllowPrivate, senv[webhook.EnvAllowPrivate])
	}

	// Least privilege.
	actions := func(fn resource) []string {
		var out []string
		for _, st := range list(get(list(fn.props["Policies"])[0], "Statement")) {
			for _, a := range list(get(st, "Action")) {
				out = append(out, str(a))
			}
		}
		slices.Sort(out)
		return out
	}
	granted := func(table []string, queue string) []string {
		var out []string
		for _, a := range table {
			out = append(out, "dynamodb:"+a)
		}
		out = append(out, queue)
		slices.Sort(out)
		return out
	}
	if got, want := actions(fanout), granted(webhooklambda.FanoutTableActions, "sqs:SendMessage"); !slices.Equal(got, want) {
		t.Errorf("the fan-out may %v, want %v", got, want)
	}
	if got, want := actions(sender), granted(webhooklambda.SenderTableActions, "sqs:ChangeMessageVisibility"); !slices.Equal(got, want) {
		t.Errorf("the sender may %v, want %v", got, want)
	}

	// Alarms: dead letters, the oldest message's age, both functions' errors, the fan-out's lag.
	for name, metric := range map[string]string{"WebhookDeadLettersAlarm": "ApproximateNumberOfMessagesVisible", "WebhookQueueAgeAlarm": "ApproximateAgeOfOldestMessage",
		"WebhookFanoutErrorsAlarm": "Errors", "WebhookSenderErrorsAlarm": "Errors", "WebhookFanoutIteratorAgeAlarm": "IteratorAge"} {
		a := tpl.named(t, name, "AWS::CloudWatch::Alarm")
		if str(a.props["MetricName"]) != metric {
			t.Errorf("%s watches %v, want %s", name, a.props["MetricName"], metric)
		}
	}
	if q := get(tpl.named(t, "WebhookDeadLettersAlarm", "AWS::CloudWatch::Alarm").props, "Dimensions"); !strings.Contains(mustJSON(q), dlq.name) {
		t.Errorf("the dead-letter alarm watches %v", q)
	}
	if q := get(tpl.named(t, "WebhookQueueAgeAlarm", "AWS::CloudWatch::Alarm").props, "Dimensions"); !strings.Contains(mustJSON(q), `"`+queue.name+`"`) {
		t.Errorf("the age alarm watches %v", q)
	}
}
