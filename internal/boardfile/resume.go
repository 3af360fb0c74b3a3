package boardfile

import (
	"errors"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// An import into a fresh store first leaves a mark there: a request record
// under a principal no caller can have (no author is named "board-import")
// and the export's id. A later run of the same file finds it and resumes;
// a different file, or a store used otherwise, finds none and is refused.
// Exports leave the mark out (it is no board tool's record), and it
// expires like any record: after MarkKept, a stopped import is finished
// with --merge=skip instead.

// markPrincipal is the mark's principal.
const markPrincipal = "board-import"

// markTool is the mark's tool name.
const markTool = "import_board"

// MarkKept is how long the mark lets a stopped import resume.
const MarkKept = 7 * 24 * time.Hour

func (im *loader) markKey() ledger.Key {
	return ledger.Key{Principal: markPrincipal, RequestID: "export-" + im.head.ExportID}
}

func (im *loader) leaveMark() error {
	rec := ledger.Record{Key: im.markKey(), Tool: markTool, Fingerprint: im.head.ExportID, Args: []byte(`{}`),
		Status: ledger.StatusDone, Result: []byte(`{}`), CreatedAt: im.opts.Now, ExpiresAt: im.opts.Now.Add(MarkKept)}
	_, err := im.dst.PutRequest(im.ctx, rec, im.opts.Now)
	return err
}

func (im *loader) marked() (bool, error) {
	_, err := im.dst.GetRequest(im.ctx, im.markKey(), im.opts.Now)
	if errors.Is(err, board.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
