package boardfile

import (
	"errors"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// batchSize is how many items one batch put holds on a store that takes
// batches (BatchTarget): big enough that syncing the file once per
// batch costs little per item, small enough that a batch is a short
// transaction beside a running server's writes.
const batchSize = 256

// batchBytes bounds a batch by the length of its items' lines too, so the
// items an import holds before it writes them stay a few megabytes
// whatever their size: 256 items of the largest kind would be over 200 MB.
const batchBytes = 2 << 20

// queued is an item read and checked, not yet written.
type queued struct {
	item     board.TransferredItem
	line     int
	kind, id string
}

// write puts an item: on a store that takes batches it is queued, and the
// queue is written when it is full or the next item is of another kind (so
// a batch never holds a note before its ticket's outcome is known); on
// others it is put at once.
func (im *loader) write(kind, id string, item board.TransferredItem) error {
	q := queued{item: item, line: im.lines.n, kind: kind, id: id}
	if _, ok := im.dst.(BatchTarget); !ok {
		out, err := im.putOne(item)
		if err != nil {
			return im.storeErr(kind+" "+id, err)
		}
		return im.count(kind, id, out, q.line)
	}
	if len(im.queue) > 0 && (im.queue[0].kind != kind || len(im.queue) >= batchSize || im.queueBytes+im.lineBytes > batchBytes) {
		if err := im.flush(); err != nil {
			return err
		}
	}
	im.queue = append(im.queue, q)
	im.queueBytes += im.lineBytes
	return nil
}

func (im *loader) putOne(item board.TransferredItem) (board.PutOutcome, error) {
	switch {
	case item.Ticket != nil:
		return im.dst.PutTicket(im.ctx, *item.Ticket)
	case item.Note != nil:
		return im.dst.PutNote(im.ctx, *item.Note)
	case item.Event != nil:
		return im.dst.PutEvent(im.ctx, *item.Event)
	case item.Request != nil:
		return im.dst.PutRequest(im.ctx, *item.Request, im.opts.Now)
	case item.Inbox != nil:
		return im.dst.PutInboxItem(im.ctx, *item.Inbox)
	}
	return 0, errors.New("an empty item")
}

// flush writes the queue as one batch. Without --merge=skip the batch
// stops after a clash, so nothing after the clashing line is written.
func (im *loader) flush() error {
	if len(im.queue) == 0 {
		return nil
	}
	bt := im.dst.(BatchTarget)
	queue := im.queue
	im.queue, im.queueBytes = nil, 0
	items := make([]board.TransferredItem, len(queue))
	for i, q := range queue {
		items[i] = q.item
	}
	outs, err := bt.PutBatch(im.ctx, items, im.opts.Now, im.opts.Merge != MergeSkip)
	for i, out := range outs {
		if cerr := im.count(queue[i].kind, queue[i].id, out, queue[i].line); cerr != nil {
			return cerr
		}
	}
	var be *board.BatchError
	if errors.As(err, &be) && be.Index < len(queue) {
		q := queue[be.Index]
		return &LineError{Line: q.line, Err: im.storeErr(q.kind+" "+q.id, be.Err)}
	}
	if err != nil {
		return fmt.Errorf("writing lines %d to %d: %w", queue[0].line, queue[len(queue)-1].line, err)
	}
	return nil
}
