package obs

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Namespace is the CloudWatch namespace of every metric the server emits.
const Namespace = "TicketLedger"

// Units the server uses (the EMF specification names CloudWatch's units).
const (
	UnitCount        = "Count"
	UnitMilliseconds = "Milliseconds"
)

// Metric is one value of an EMF line.
type Metric struct {
	Name  string
	Unit  string
	Value float64
}

// Metrics writes CloudWatch embedded-metric-format lines: one JSON object
// per line, whose _aws member tells CloudWatch Logs which of its top-level
// members are metrics and which are dimensions. On Lambda the function's
// stdout goes to its log group, where CloudWatch extracts the metrics; no
// agent, no API call, no library. A nil *Metrics writes nothing (the local
// default).
type Metrics struct {
	mu        sync.Mutex
	w         io.Writer
	namespace string
	now       func() time.Time
}

// NewMetrics writes EMF lines to w under Namespace.
func NewMetrics(w io.Writer) *Metrics {
	return &Metrics{w: w, namespace: Namespace, now: time.Now}
}

// Emit writes one line: the metrics, aggregated over each of dimensionSets
// (each a list of keys of dims), plus properties that CloudWatch keeps in
// the log event but does not turn into metrics (a request id to search
// for).
func (m *Metrics) Emit(dims map[string]string, dimensionSets [][]string, metrics []Metric, properties map[string]any) {
	if m == nil {
		return
	}
	type metricDef struct {
		Name string `json:"Name"`
		Unit string `json:"Unit"`
	}
	defs := make([]metricDef, 0, len(metrics))
	line := make(map[string]any, len(dims)+len(metrics)+len(properties)+1)
	for k, v := range properties {
		line[k] = v
	}
	for k, v := range dims {
		line[k] = v
	}
	for _, mt := range metrics {
		defs = append(defs, metricDef{Name: mt.Name, Unit: mt.Unit})
		line[mt.Name] = mt.Value
	}
	if dimensionSets == nil {
		dimensionSets = [][]string{}
	}
	line["_aws"] = map[string]any{
		"Timestamp": m.now().UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace":  m.namespace,
			"Dimensions": dimensionSets,
			"Metrics":    defs,
		}},
	}
	b, err := json.Marshal(line)
	if err != nil {
		return // only numbers and strings: cannot happen
	}
	b = append(b, '\n')
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.Write(b)
}

// Request metrics, per surface and per operation (the MCP tool, the MCP
// method, the REST route, the endpoint).
const (
	MetricCalls          = "Calls"
	MetricErrors         = "Errors"
	MetricReplays        = "Replays"
	MetricMismatches     = "Mismatches"
	MetricPolicyRefusals = "PolicyRefusals"
	MetricLatency        = "Latency"
	MetricStoreRequests  = "StoreRequests"
	MetricStoreThrottles = "StoreThrottles"
	MetricStoreConflicts = "StoreConflicts"
)

// Task metrics, written by whatever runs an import's chunks.
const (
	MetricTaskRowsImported = "TaskRowsImported"
	MetricTaskFailures     = "TaskFailures"
)

// Dimension keys.
const (
	DimSurface   = "Surface"
	DimOperation = "Operation"
)

// EmitRequest writes the metrics of one finished request.
func (m *Metrics) EmitRequest(s Summary) {
	if m == nil {
		return
	}
	b := func(ok bool) float64 {
		if ok {
			return 1
		}
		return 0
	}
	m.Emit(map[string]string{DimSurface: s.Surface, DimOperation: s.Operation()},
		[][]string{{DimSurface}, {DimSurface, DimOperation}},
		[]Metric{
			{MetricCalls, UnitCount, 1},
			{MetricErrors, UnitCount, b(s.ServerError())},
			{MetricReplays, UnitCount, b(s.Replayed)},
			{MetricMismatches, UnitCount, b(s.ErrorCode == CodeRequestReused)},
			{MetricPolicyRefusals, UnitCount, b(s.ErrorCode == CodeForbidden)},
			{MetricLatency, UnitMilliseconds, float64(s.Latency.Microseconds()) / 1000},
			{MetricStoreRequests, UnitCount, float64(s.StoreRequests)},
			{MetricStoreThrottles, UnitCount, float64(s.StoreThrottles)},
			{MetricStoreConflicts, UnitCount, float64(s.StoreConflicts)},
		},
		map[string]any{"request_id": s.ID})
}

// EmitTask writes what one run of a task's chunks did: rows imported, and
// whether the task failed.
func (m *Metrics) EmitTask(taskID string, rowsImported int, failed bool) {
	if m == nil {
		return
	}
	f := 0.0
	if failed {
		f = 1
	}
	m.Emit(map[string]string{DimSurface: "task"}, [][]string{{DimSurface}},
		[]Metric{{MetricTaskRowsImported, UnitCount, float64(rowsImported)}, {MetricTaskFailures, UnitCount, f}},
		map[string]any{"task_id": taskID})
}

// The error codes the metrics single out (the domain's codes, as text).
const (
	CodeRequestReused = "request_id_reused"
	CodeForbidden     = "forbidden"
	CodeInternal      = "internal"
)

// ServerError: the request failed for a reason that is not the caller's
// (a 5xx, or an internal error inside a tool result).
func (s Summary) ServerError() bool { return s.Status >= 500 || s.ErrorCode == CodeInternal }
