package dynamo

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// newTicketItems is what every write that makes a ticket (a create, an
// import chunk's row, a transferred ticket) stores for it,
// built in one place so that none of them misses an index item: the
// ticket's item, put on the condition that no item holds its key (its
// id, so its number) and checked against the item size limit, and the put
// of its tag index items. Its word items are the caller's (withWords): how
// many of them fit depends on the rest of the transaction.
type newTicketItems struct {
	ticket types.TransactWriteItem
	tags   []types.TransactWriteItem
	size   int // the ticket item's, for writes that fill a transaction by size
}

// newTicket builds t's items; returnOld asks for the stored item when the
// ticket's condition fails.
func (s *Store) newTicket(t board.Ticket, returnOld bool) (newTicketItems, error) {
	item, err := ticketItem(t)
	if err != nil {
		return newTicketItems{}, err
	}
	if err := checkSize("ticket", item); err != nil {
		return newTicketItems{}, err
	}
	return newTicketItems{
		ticket: s.put(item, "attribute_not_exists(#pk)", absent, nil, returnOld),
		tags:   s.tagWrites(nil, t),
		size:   itemSize(item),
	}, nil
}
