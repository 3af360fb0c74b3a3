package dynamo

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxItemBytes is DynamoDB's item size limit (400 KB, names included).
const maxItemBytes = 400 * 1024

// checkSize refuses an item DynamoDB would refuse, with a message that says
// which one. The board's limits (docs/architecture.md, "Data") keep every
// item well below it: a 20 000-character body is at most 80 KB of UTF-8,
// stored twice in a ticket (JSON doc and lower-cased copy) and twice in a
// create's request record (arguments and result).
func checkSize(what string, item map[string]types.AttributeValue) error {
	if n := itemSize(item); n > maxItemBytes {
		return fmt.Errorf("dynamo: the %s item would be %d bytes, over DynamoDB's %d-byte item limit", what, n, maxItemBytes)
	}
	return nil
}

// itemSize follows DynamoDB's published sizing: attribute name bytes plus
// value bytes (strings: UTF-8 length; numbers: about one byte per two
// significant digits plus one).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

func numberSize(s string) int { return (len(s)+1)/2 + 1 }
