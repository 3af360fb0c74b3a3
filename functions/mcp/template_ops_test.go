package main

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ticket-ledger/ticket-ledger/internal/obs"
)

// The template's operations (docs/operating.md): JSON logs, an alarm on
// each way the deployment fails, each watching a resource of this template,
// notifications only when an email is given, and a dashboard.
func TestTemplateOperations(t *testing.T) {
	tpl := loadTemplate(t)

	t.Run("json logs", func(t *testing.T) {
		lc := get(tpl.doc, "Globals", "Function", "LoggingConfig")
		if str(get(lc, "LogFormat")) != "JSON" {
			t.Errorf("Globals.Function.LoggingConfig.LogFormat = %q, want JSON (the request lines are JSON with a level)", str(get(lc, "LogFormat")))
		}
		// Request lines are INFO; a level above it would hide them.
		if lvl := str(get(lc, "ApplicationLogLevel")); lvl != "INFO" && lvl != "DEBUG" && lvl != "TRACE" {
			t.Errorf("ApplicationLogLevel = %q: the request lines (INFO) would be dropped", lvl)
		}
	})

	t.Run("notification email", func(t *testing.T) {
		p, ok := get(tpl.doc, "Parameters", "AlarmEmail").(map[string]any)
		if !ok || str(p["Default"]) != "" {
			t.Fatalf("want an optional AlarmEmail parameter (default empty), got %v", p)
		}
		cond := get(tpl.doc, "Conditions", "NotifyByEmail")
		want := map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "AlarmEmail"}, ""}}}}
		if !reflect.DeepEqual(cond, want) {
			t.Errorf("Conditions.NotifyByEmail = %v, want %v", cond, want)
		}
		topic := tpl.named(t, "AlarmTopic", "AWS::SNS::Topic")
		sub := tpl.named(t, "AlarmEmailSubscription", "AWS::SNS::Subscription")
		for _, r := range []resource{topic, sub} {
			if str(r.raw["Condition"]) != "NotifyByEmail" {
				t.Errorf("%s is created without an email (Condition = %q)", r.name, str(r.raw["Condition"]))
			}
		}
		if str(sub.props["Protocol"]) != "email" || !reflect.DeepEqual(sub.props["Endpoint"], map[string]any{"Ref": "AlarmEmail"}) ||
			!reflect.DeepEqual(sub.props["TopicArn"], map[string]any{"Ref": "AlarmTopic"}) {
			t.Errorf("the subscription does not send AlarmTopic to AlarmEmail: %v", sub.props)
		}
	})

	alarms := map[string]resource{}
	for name, r := range tpl.doc["Resources"].(map[string]any) {
		if str(get(r, "Type")) == "AWS::CloudWatch::Alarm" {
			props, _ := get(r, "Properties").(map[string]any)
			alarms[name] = resource{name: name, raw: r.(map[string]any), props: props}
		}
	}
	api := tpl.resource(t, "AWS::Serverless::HttpApi")
	table := tpl.resource(t, "AWS::DynamoDB::Table")
	ref := func(name string) map[string]any { return map[string]any{"Ref": name} }

	// watched reports the alarms on namespace/metric whose dimensions (of
	// the metric, or of every metric of its expression) include dims.
	watched := func(namespace, metric string, dims map[string]any) []resource {
		var out []resource
		for _, a := range sortedAlarms(alarms) {
			for _, m := range alarmMetrics(a) {
				if m.namespace == namespace && m.metric == metric && hasDims(m.dims, dims) {
					out = append(out, a)
					break
				}
			}
		}
		return out
	}
	for _, c := range []struct {
		what              string
		namespace, metric string
		dims              map[string]any
	}{
		{"MCP function errors", "AWS/Lambda", "Errors", map[string]any{"FunctionName": ref("McpFunction")}},
		{"MCP function throttles", "AWS/Lambda", "Throttles", map[string]any{"FunctionName": ref("McpFunction")}},
		{"web function errors", "AWS/Lambda", "Errors", map[string]any{"FunctionName": ref(webResource)}},
		{"web function throttles", "AWS/Lambda", "Throttles", map[string]any{"FunctionName": ref(webResource)}},
		{"worker errors", "AWS/Lambda", "Errors", map[string]any{"FunctionName": ref(workerResource)}},
		{"worker throttles", "AWS/Lambda", "Throttles", map[string]any{"FunctionName": ref(workerResource)}},
		{"API 5xx", "AWS/ApiGateway", "5xx", map[string]any{"ApiId": ref(api.name)}},
		{"failed imports", "AWS/States", "ExecutionsFailed", map[string]any{"StateMachineArn": ref(stateMachineResource)}},
	} {
		if len(watched(c.namespace, c.metric, c.dims)) == 0 {
			t.Errorf("no alarm on %s (%s %s %v)", c.what, c.namespace, c.metric, c.dims)
		}
	}

	// DynamoDB publishes throttles and system errors per operation: the
	// alarms must sum every operation the functions may send.
	t.Run("table alarms cover every operation", func(t *testing.T) {
		ops := map[string]bool{"TransactWriteItems": true} // every write; checked per item by IAM
		for _, fn := range []string{agentsResource, webResource, workerResource, indexerResource, webhookFanoutResource, webhookSenderResource} {
			for _, st := range list(get(list(tpl.named(t, fn, "AWS::Serverless::Function").props["Policies"])[0], "Statement")) {
				for _, a := range list(get(st, "Action")) {
					if op, ok := strings.CutPrefix(str(a), "dynamodb:"); ok && op != "ConditionCheckItem" {
						ops[op] = true // ConditionCheckItem exists only inside a transaction
					}
				}
			}
		}
		for _, metric := range []string{"ThrottledRequests", "SystemErrors"} {
			as := watched("AWS/DynamoDB", metric, map[string]any{"TableName": ref(table.name)})
			if len(as) != 1 {
				t.Errorf("want one alarm on the table's %s, got %d", metric, len(as))
				continue
			}
			got := map[string]bool{}
			for _, m := range alarmMetrics(as[0]) {
				got[str(m.dims["Operation"])] = true
			}
			for op := range ops {
				if !got[op] {
					t.Errorf("%s: the alarm leaves out %s", metric, op)
				}
			}
			expr := ""
			for _, m := range list(as[0].props["Metrics"]) {
				if get(m, "ReturnData") == true {
					expr = str(get(m, "Expression"))
				}
			}
			for _, m := range list(as[0].props["Metrics"]) {
				if id := str(get(m, "Id")); get(m, "MetricStat") != nil && !strings.Contains(expr, id) {
					t.Errorf("%s: %s is not in the alarm's expression %q", metric, id, expr)
				}
			}
		}
	})

	// The function's own metrics (EMF): internal errors answered as tool
	// results (HTTP 200) on every surface the middleware names.
	t.Run("internal errors alarm matches the code", func(t *testing.T) {
		a, ok := alarms["InternalErrorsAlarm"]
		if !ok {
			t.Fatal("no InternalErrorsAlarm")
		}
		got := map[string]bool{}
		for _, m := range alarmMetrics(a) {
			if m.namespace != obs.Namespace || m.metric != obs.MetricErrors {
				t.Errorf("InternalErrorsAlarm watches %s %s, want %s %s", m.namespace, m.metric, obs.Namespace, obs.MetricErrors)
			}
			got[str(m.dims[obs.DimSurface])] = true
		}
		for _, s := range []string{obs.SurfaceMCP, obs.SurfaceREST, obs.SurfaceWeb, obs.SurfaceOAuth, obs.SurfaceHealth} {
			if !got[s] {
				t.Errorf("InternalErrorsAlarm leaves out the %s surface", s)
			}
		}
	})

	t.Run("every alarm notifies the topic when there is one", func(t *testing.T) {
		want := map[string]any{"Fn::If": []any{"NotifyByEmail", []any{ref("AlarmTopic")}, ref("AWS::NoValue")}}
		for _, a := range sortedAlarms(alarms) {
			if !reflect.DeepEqual(a.props["AlarmActions"], want) {
				t.Errorf("%s: AlarmActions = %v, want %v", a.name, a.props["AlarmActions"], want)
			}
			if str(a.props["AlarmDescription"]) == "" {
				t.Errorf("%s has no description (what it means, what to do)", a.name)
			}
			if str(a.props["TreatMissingData"]) != "notBreaching" {
				t.Errorf("%s: TreatMissingData = %q; a quiet board is not an alarm", a.name, str(a.props["TreatMissingData"]))
			}
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		d := tpl.resource(t, "AWS::CloudWatch::Dashboard")
		body := str(get(d.props, "DashboardBody", "Fn::Sub"))
		for _, want := range []string{obs.Namespace, "${McpFunction}", "${" + webResource + "}", "${" + workerResource + "}", "${" + api.name + "}", "${" + table.name + "}", "${" + stateMachineResource + "}", obs.MetricTaskRowsImported} {
			if !strings.Contains(body, want) {
				t.Errorf("the dashboard does not show %s", want)
			}
		}
	})
}

type alarmMetric struct {
	namespace, metric string
	dims              map[string]any
}

// alarmMetrics lists the metrics an alarm watches: its one metric, or each
// metric of its expression.
func alarmMetrics(a resource) []alarmMetric {
	dims := func(v any) map[string]any {
		out := map[string]any{}
		for _, d := range list(v) {
			out[str(get(d, "Name"))] = get(d, "Value")
		}
		return out
	}
	if ns := str(a.props["Namespace"]); ns != "" {
		return []alarmMetric{{ns, str(a.props["MetricName"]), dims(a.props["Dimensions"])}}
	}
	var out []alarmMetric
	for _, m := range list(a.props["Metrics"]) {
		if ms := get(m, "MetricStat", "Metric"); ms != nil {
			out = append(out, alarmMetric{str(get(ms, "Namespace")), str(get(ms, "MetricName")), dims(get(ms, "Dimensions"))})
		}
	}
	return out
}

func hasDims(got, want map[string]any) bool {
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			return false
		}
	}
	return true
}

func sortedAlarms(m map[string]resource) []resource {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]resource, 0, len(names))
	for _, n := range names {
		out = append(out, m[n])
	}
	return slices.Clip(out)
}
