package dynamo

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// policyCondition is the one condition every write puts on its workspace
// item (the counter update of a create, the count move or the check of a
// save): the workspace exists and, if allowed is not nil, its ai_policy is
// one of allowed. Callers add their own names and values to the maps.
func policyCondition(allowed []board.AIPolicy) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#pk": attrPK}
	values := map[string]types.AttributeValue{}
	cond := "attribute_exists(#pk)"
	if allowed == nil {
		return cond, names, values
	}
	if len(allowed) == 0 {
		return "attribute_not_exists(#pk) AND attribute_exists(#pk)", names, values // allows nothing
	}
	names["#policy"] = attrPolicy
	in := make([]string, len(allowed))
	for i, p := range allowed {
		name := ":p" + strconv.Itoa(i)
		values[name] = str(string(p))
		in[i] = name
	}
	return cond + " AND #policy IN (" + strings.Join(in, ", ") + ")", names, values
}
