package dynamo

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// compressAbove is the size from which a JSON value is stored deflated.
// Ticket bodies, arguments and results are text that compresses well, and
// DynamoDB bills reads and writes by the kilobyte; the main reason is the
// 400 KB item limit, which a ticket with every field at its limit would
// otherwise pass (a control character costs 6 bytes in JSON).
const compressAbove = 1024

// zipped names the binary attribute that holds name's value deflated.
func zipped(name string) string { return name + "_z" }

// putBlob stores v under name as a string, or deflated under name_z.
func putBlob(item map[string]types.AttributeValue, name string, v []byte) {
	if len(v) == 0 {
		return
	}
	if len(v) > compressAbove {
		if z, ok := deflate(v); ok {
			item[zipped(name)] = &types.AttributeValueMemberB{Value: z}
			return
		}
	}
	item[name] = str(string(v))
}

// getBlob reads what putBlob stored; nil when absent.
func getBlob(item map[string]types.AttributeValue, name string) ([]byte, error) {
	if z, ok := item[zipped(name)].(*types.AttributeValueMemberB); ok {
		v, err := io.ReadAll(flate.NewReader(bytes.NewReader(z.Value)))
		if err != nil {
			return nil, fmt.Errorf("dynamo: inflating %s: %w", name, err)
		}
		return v, nil
	}
	if v := getS(item, name); v != "" {
		return []byte(v), nil
	}
	return nil, nil
}

// deflate compresses v, reporting false when that does not make it smaller.
func deflate(v []byte) ([]byte, bool) {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.DefaultCompression) // the level is valid
	_, _ = w.Write(v)                                       // writes to a bytes.Buffer do not fail
	_ = w.Close()
	return buf.Bytes(), buf.Len() < len(v)
}
