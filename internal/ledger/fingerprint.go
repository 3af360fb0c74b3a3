package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// Canonical returns the canonical JSON of v: object keys sorted, no
// insignificant whitespace, no HTML escaping (RFC 8785 style for the value
// shapes tool arguments have: strings, integers, booleans, arrays, objects).
// v is first marshalled with encoding/json so struct tags decide field names
// and omitempty decides which absent fields are left out.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return encodeCanonical(generic)
}

// encodeCanonical writes a decoded JSON value (numbers as json.Number).
func encodeCanonical(generic any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// encoding/json sorts map keys, which is what makes the output canonical.
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Fingerprint is the hex SHA-256 of canonical JSON.
func Fingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// DiffFields names the top-level fields whose values differ between two
// canonical JSON objects, sorted, so a mismatch error can say what changed.
func DiffFields(a, b []byte) ([]string, error) {
	var ma, mb map[string]any
	if err := json.Unmarshal(a, &ma); err != nil {
		return nil, fmt.Errorf("decoding stored arguments: %w", err)
	}
	if err := json.Unmarshal(b, &mb); err != nil {
		return nil, fmt.Errorf("decoding new arguments: %w", err)
	}
	var diff []string
	for k, va := range ma {
		if vb, ok := mb[k]; !ok || !reflect.DeepEqual(va, vb) {
			diff = append(diff, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return diff, nil
}

// CanonicalArgs is the canonical JSON of a tool's validated arguments
// without request_id, which names the call rather than describing it. It is
// Canonical of the arguments' object less that member, in one decoding: every
// write computes it.
func CanonicalArgs(args any) ([]byte, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	m, ok := generic.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, not %s", raw)
	}
	delete(m, "request_id")
	return encodeCanonical(m)
}
