package boardfile

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Source is a store an export reads.
type Source interface {
	TransferSource
	ListPeople(ctx context.Context) ([]board.Person, error)
	ListTokens(ctx context.Context, handle string) ([]board.APIToken, error)
	OAuthTransferSource
	GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error)
	WebhookSource
}

// ExportOptions say what an export writes.
type ExportOptions struct {
	// Workspace, if set, exports that workspace only.
	Workspace string
	// WithPeople adds people, their API tokens and their connected agents
	// (OAuth clients, grants and the grants' tokens; hashes only), and the
	// webhooks' signing secrets (sealed, with the key that opens them).
	WithPeople bool
	// Now judges which request records are still inside their retention
	// window.
	Now time.Time
}

// encoder writes lines and counts them. HTML characters stay as they are:
// a record's stored arguments and result move byte for byte.
type encoder struct {
	buf    *bufio.Writer
	enc    *json.Encoder
	counts Counts
}

func newEncoder(w io.Writer) *encoder {
	buf := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return &encoder{buf: buf, enc: enc, counts: Counts{}}
}

func (e *encoder) write(l line) error {
	if err := e.enc.Encode(l); err != nil {
		return err
	}
	e.counts[l.Kind]++
	return nil
}

// Export writes src's board to w and returns the count of each kind. The
// store is read page by page and each line written as it is read, so an
// export holds one page, never the board.
func Export(ctx context.Context, src Source, w io.Writer, opts ExportOptions) (Counts, error) {
	if opts.Workspace != "" {
		if err := board.ValidateSlug(opts.Workspace); err != nil {
			return nil, err
		}
	}
	e := newEncoder(w)
	var id [12]byte
	_, _ = rand.Read(id[:]) // never fails (crypto/rand panics instead)
	if err := e.enc.Encode(Header{Format: Format, Version: Version, ExportedAt: opts.Now.UTC(), Workspace: opts.Workspace,
		WithPeople: opts.WithPeople, ExportID: hex.EncodeToString(id[:])}); err != nil {
		return nil, err
	}
	// Every workspace first, so an import knows them all before any
	// ticket; their slugs are kept to walk each one's items next.
	var slugs []string
	err := src.TransferWorkspaces(ctx, func(ws board.TransferredWorkspace) error {
		if opts.Workspace != "" && ws.Slug != opts.Workspace {
			return nil
		}
		slugs = append(slugs, ws.Slug)
		return e.write(line{Kind: KindWorkspace, Workspace: &ws})
	})
	if err != nil {
		return nil, err
	}
	if opts.Workspace != "" && len(slugs) == 0 {
		return nil, fmt.Errorf("workspace %q does not exist in this store; run ticket-ledger export without --workspace to export every workspace", opts.Workspace)
	}
	for _, slug := range slugs {
		if err := exportWorkspace(ctx, src, e, slug); err != nil {
			return nil, fmt.Errorf("exporting workspace %s: %w", slug, err)
		}
	}
	err = src.TransferRequests(ctx, opts.Now, func(r ledger.Record) error {
		if !board.TransferredTool(r.Tool) || (opts.Workspace != "" && recordWorkspace(r) != opts.Workspace) {
			return nil
		}
		return e.write(line{Kind: KindRequest, Request: &r})
	})
	if err != nil {
		return nil, fmt.Errorf("exporting request records: %w", err)
	}
	if opts.WithPeople {
		if err := exportPeople(ctx, src, e); err != nil {
			return nil, err
		}
		if err := exportAgents(ctx, src, e, opts.Now); err != nil {
			return nil, err
		}
	}
	if err := exportWebhooks(ctx, src, e, slugs, opts.WithPeople); err != nil {
		return nil, err
	}
	if err := e.enc.Encode(line{Kind: KindEnd, Counts: e.counts}); err != nil {
		return nil, err
	}
	return e.counts, e.buf.Flush()
}

func exportWorkspace(ctx context.Context, src Source, e *encoder, slug string) error {
	err := src.TransferTickets(ctx, slug, func(t board.Ticket) error {
		return e.write(line{Kind: KindTicket, Ticket: &transferredTicket{Ticket: t, Number: t.Number}})
	})
	if err != nil {
		return err
	}
	err = src.TransferRelations(ctx, slug, func(r board.TransferredRelation) error {
		return e.write(line{Kind: KindRelation, Relation: &r})
	})
	if err != nil {
		return err
	}
	err = src.TransferNotes(ctx, slug, func(n board.Note) error { return e.write(line{Kind: KindNote, Note: &n}) })
	if err != nil {
		return err
	}
	err = src.TransferEvents(ctx, slug, func(ev board.Event) error { return e.write(line{Kind: KindEvent, Event: &ev}) })
	if err != nil {
		return err
	}
	return src.TransferInbox(ctx, slug, func(it board.InboxEntry) error {
		return e.write(line{Kind: KindInboxItem, InboxItem: &transferredInboxItem{Recipient: it.Recipient, InboxItem: it.Item}})
	})
}

func exportPeople(ctx context.Context, src Source, e *encoder) error {
	people, err := src.ListPeople(ctx)
	if err != nil {
		return fmt.Errorf("exporting people: %w", err)
	}
	for _, p := range people {
		if err := e.write(line{Kind: KindPerson, Person: personOf(p)}); err != nil {
			return err
		}
	}
	tokens, err := src.ListTokens(ctx, "")
	if err != nil {
		return fmt.Errorf("exporting API tokens: %w", err)
	}
	for _, t := range tokens {
		if err := e.write(line{Kind: KindToken, Token: tokenOf(t)}); err != nil {
			return err
		}
	}
	return nil
}

// recordWorkspace is the workspace a record's call wrote to: its
// workspace argument (slug, for create_workspace), or the workspace of its
// ticket_id.
func recordWorkspace(r ledger.Record) string {
	var args struct {
		Workspace string `json:"workspace"`
		Slug      string `json:"slug"`
		ID        string `json:"id"`
	}
	if json.Unmarshal(r.Args, &args) != nil {
		return ""
	}
	if args.Workspace != "" {
		return args.Workspace
	}
	if r.Tool == board.ToolCreateWorkspace {
		return args.Slug
	}
	id := args.ID
	if id == "" {
		id = noteRecordTicket(r) // edit_note and redact_note name a note
	}
	slug, _, err := board.ParseTicketID(id)
	if err != nil {
		return ""
	}
	return slug
}

// noteRecordTicket is the ticket of the note a record's result answers.
func noteRecordTicket(r ledger.Record) string {
	var result struct {
		Note struct {
			TicketID string `json:"ticket_id"`
		} `json:"note"`
	}
	if json.Unmarshal(r.Result, &result) != nil {
		return ""
	}
	return result.Note.TicketID
}
