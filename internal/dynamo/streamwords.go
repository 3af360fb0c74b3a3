package dynamo

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// StreamViewType is what the table's stream must carry for the word
// consumer (functions/indexer): both images, so it can diff a ticket's
// words before and after each write.
const StreamViewType = types.StreamViewTypeNewAndOldImages

// WordsDone is how many word changes the write that stored image carried
// in its own transaction (0 when it says nothing): IndexWordChange's done.
func WordsDone(image map[string]types.AttributeValue) int {
	return int(getN(image, attrWordsDone))
}

// TicketFromImage is the ticket a stream record's image holds, or nil when
// the image is absent (an insert's old image, a removal's new one) or is
// not a ticket's item (request records, events, index items: the table's
// stream carries every write).
func TicketFromImage(image map[string]types.AttributeValue) (*board.Ticket, error) {
	if len(image) == 0 || getS(image, attrSK) != skTicket || !strings.HasPrefix(getS(image, attrPK), pkTicketPrefix) {
		return nil, nil
	}
	t, err := decodeTicket(image)
	if err != nil {
		return nil, err
	}
	return &t, nil
}
