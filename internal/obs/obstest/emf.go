// Package obstest checks what internal/obs writes, for tests: EMF lines
// against the structure the CloudWatch embedded metric format
// specification requires, and request log lines.
package obstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// units are the values the EMF specification allows for a metric's Unit
// (CloudWatch's standard units).
var units = map[string]bool{
	"Seconds": true, "Microseconds": true, "Milliseconds": true, "Bytes": true, "Kilobytes": true, "Megabytes": true,
	"Gigabytes": true, "Terabytes": true, "Bits": true, "Kilobits": true, "Megabits": true, "Gigabits": true, "Terabits": true,
	"Percent": true, "Count": true, "Bytes/Second": true, "Kilobytes/Second": true, "Megabytes/Second": true,
	"Gigabytes/Second": true, "Terabytes/Second": true, "Bits/Second": true, "Kilobits/Second": true,
	"Megabits/Second": true, "Gigabits/Second": true, "Terabits/Second": true, "Count/Second": true, "None": true,
}

// EMF is one parsed EMF line: its top-level members and its directives.
type EMF struct {
	Members    map[string]any
	Timestamp  int64
	Directives []Directive
}

// Directive is one entry of _aws.CloudWatchMetrics.
type Directive struct {
	Namespace  string
	Dimensions [][]string
	Metrics    []MetricDef
}

// MetricDef is one entry of a directive's Metrics.
type MetricDef struct {
	Name string
	Unit string
}

// Value is the number a metric carries (the first, for an array).
func (e EMF) Value(name string) float64 {
	switch v := e.Members[name].(type) {
	case float64:
		return v
	case []any:
		if len(v) > 0 {
			f, _ := v[0].(float64)
			return f
		}
	}
	return math.NaN()
}

// ParseEMF checks line against the EMF specification's structure and
// returns it parsed: a JSON object with an _aws member holding an integer
// Timestamp (milliseconds) and a non-empty CloudWatchMetrics array; each
// directive has a Namespace (1–255 characters), Dimensions (an array of
// dimension sets, each of at most 30 keys) and Metrics (at most 100, each
// with a Name of 1–255 characters and, if given, a Unit CloudWatch knows
// and a StorageResolution of 1 or 60); every dimension key is a top-level
// member with a string value, and every metric name a top-level member with
// a number or an array of at most 100 numbers.
func ParseEMF(line []byte) (EMF, error) {
	var out EMF
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return out, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return out, fmt.Errorf("more than one JSON value on the line")
	}
	aws, ok := root["_aws"].(map[string]any)
	if !ok {
		return out, fmt.Errorf("no _aws object")
	}
	ts, ok := aws["Timestamp"].(json.Number)
	if !ok {
		return out, fmt.Errorf("_aws.Timestamp is not a number")
	}
	n, err := ts.Int64()
	if err != nil || n <= 0 {
		return out, fmt.Errorf("_aws.Timestamp %q is not a positive integer of milliseconds", ts)
	}
	out.Timestamp = n
	directives, ok := aws["CloudWatchMetrics"].([]any)
	if !ok || len(directives) == 0 {
		return out, fmt.Errorf("_aws.CloudWatchMetrics is not a non-empty array")
	}
	for i, d := range directives {
		dm, ok := d.(map[string]any)
		if !ok {
			return out, fmt.Errorf("CloudWatchMetrics[%d] is not an object", i)
		}
		var dir Directive
		ns, ok := dm["Namespace"].(string)
		if !ok || len(ns) == 0 || len(ns) > 255 {
			return out, fmt.Errorf("CloudWatchMetrics[%d].Namespace %v is not a string of 1-255 characters", i, dm["Namespace"])
		}
		dir.Namespace = ns
		sets, ok := dm["Dimensions"].([]any)
		if !ok {
			return out, fmt.Errorf("CloudWatchMetrics[%d].Dimensions is not an array", i)
		}
		for j, s := range sets {
			keys, ok := s.([]any)
			if !ok || len(keys) > 30 {
				return out, fmt.Errorf("Dimensions[%d] is not an array of at most 30 keys", j)
			}
			var set []string
			for _, k := range keys {
				ks, ok := k.(string)
				if !ok {
					return out, fmt.Errorf("Dimensions[%d] has a key that is not a string: %v", j, k)
				}
				if _, ok := root[ks].(string); !ok {
					return out, fmt.Errorf("dimension %q is not a top-level member with a string value", ks)
				}
				set = append(set, ks)
			}
			dir.Dimensions = append(dir.Dimensions, set)
		}
		metrics, ok := dm["Metrics"].([]any)
		if !ok || len(metrics) > 100 {
			return out, fmt.Errorf("CloudWatchMetrics[%d].Metrics is not an array of at most 100", i)
		}
		for _, m := range metrics {
			mm, ok := m.(map[string]any)
			if !ok {
				return out, fmt.Errorf("a metric definition is not an object: %v", m)
			}
			name, ok := mm["Name"].(string)
			if !ok || len(name) == 0 || len(name) > 255 {
				return out, fmt.Errorf("metric Name %v is not a string of 1-255 characters", mm["Name"])
			}
			def := MetricDef{Name: name}
			if u, present := mm["Unit"]; present {
				us, ok := u.(string)
				if !ok || !units[us] {
					return out, fmt.Errorf("metric %s: Unit %v is not a CloudWatch unit", name, u)
				}
				def.Unit = us
			}
			if r, present := mm["StorageResolution"]; present {
				if rn, ok := r.(json.Number); !ok || (rn.String() != "1" && rn.String() != "60") {
					return out, fmt.Errorf("metric %s: StorageResolution %v is not 1 or 60", name, r)
				}
			}
			switch v := root[name].(type) {
			case json.Number:
			case []any:
				if len(v) == 0 || len(v) > 100 {
					return out, fmt.Errorf("metric %s: an array of %d values, want 1-100", name, len(v))
				}
				for _, x := range v {
					if _, ok := x.(json.Number); !ok {
						return out, fmt.Errorf("metric %s: %v is not a number", name, x)
					}
				}
			default:
				return out, fmt.Errorf("metric %s is not a top-level member with a number value", name)
			}
			dir.Metrics = append(dir.Metrics, def)
		}
		out.Directives = append(out.Directives, dir)
	}
	// Members as plain values for the caller.
	var plain map[string]any
	if err := json.Unmarshal(line, &plain); err != nil {
		return out, err
	}
	out.Members = plain
	return out, nil
}
