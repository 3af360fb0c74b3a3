package dynamo

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// EventStreamPattern is the stream filter (Lambda FilterCriteria) that
// passes new event items only, a ticket's (in its partition) and a
// workspace's own alike: the webhooks' fan-out (functions/webhookfanout)
// reads nothing else.
const EventStreamPattern = `{"eventName": ["INSERT"], "dynamodb": {"Keys": {` +
	`"pk": {"S": [{"prefix": "` + pkTicketPrefix + `"}, {"prefix": "` + pkWSEventsPrefix + `"}]}, ` +
	`"sk": {"S": [{"prefix": "` + skEventPrefix + `"}]}}}}`

// EventFromImage is the event a stream record's new image holds, or nil
// when the image is absent or not an event's item.
func EventFromImage(image map[string]types.AttributeValue) (*board.Event, error) {
	pk := getS(image, attrPK)
	if len(image) == 0 || getS(image, attrType) != typeEvent || !strings.HasPrefix(getS(image, attrSK), skEventPrefix) ||
		!(strings.HasPrefix(pk, pkTicketPrefix) || strings.HasPrefix(pk, pkWSEventsPrefix)) {
		return nil, nil
	}
	e, err := decodeDoc[board.Event](image)
	if err != nil {
		return nil, err
	}
	return &e, nil
}
