package boardfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Target is a store an import writes to.
type Target interface {
	TransferTarget
	// TransferWorkspaces lists the target's workspaces, to tell an earlier
	// run of the same import from another board.
	TransferWorkspaces(ctx context.Context, fn func(board.TransferredWorkspace) error) error
	GetPerson(ctx context.Context, handle string) (board.Person, error)
	CreatePerson(ctx context.Context, p board.Person, inv *board.Invitation) error
	GetToken(ctx context.Context, id string) (board.APIToken, error)
	CreateToken(ctx context.Context, t board.APIToken) error
	GetRequest(ctx context.Context, key ledger.Key, now time.Time) (ledger.Record, error)
	OAuthTransferTarget
	GetOAuthClient(ctx context.Context, id string, now time.Time) (board.OAuthClient, error)
	PutOAuthClient(ctx context.Context, c board.OAuthClient) error
}

// Merge says what an import into a store that already holds a board does.
type Merge string

const (
	// MergeNone: the target must be empty, or hold only what an earlier
	// run of this same import wrote (it is resumed); any item stored
	// with other content stops the import.
	MergeNone Merge = ""
	// MergeSkip: an item whose id the target already holds with other
	// content keeps the target's copy and is listed; so are the notes,
	// history and request records of a ticket kept that way. Everything
	// new to the target is added.
	MergeSkip Merge = "skip"
	// MergeFail: the target may hold other workspaces; the first item
	// whose id it holds with other content stops the import.
	MergeFail Merge = "fail"
)

// ParseMerge reads --merge's value.
func ParseMerge(s string) (Merge, error) {
	switch m := Merge(s); m {
	case MergeSkip, MergeFail:
		return m, nil
	}
	return "", fmt.Errorf("--merge=%s is not a mode: use --merge=skip (keep the target's copy of every clashing item and add the rest) or --merge=fail (stop at the first clash)", s)
}

// LoadOptions say how an import writes.
type LoadOptions struct {
	Merge Merge
	// Now judges which request records are still inside their retention
	// window: expired ones are skipped.
	Now time.Time
	// Collisions, if set, gets one line per item kept as the target had
	// it (MergeSkip), and per token or grant skipped with its person.
	Collisions io.Writer
	// WithPeople reads the file's people, API tokens and connected agents
	// (import-board --with-people). Without it they are skipped, counted
	// under Skipped; with it, the file's header must say it holds them.
	// Either way a token or grant goes only to a person this file wrote,
	// or one the target holds exactly as the file has it: never to a
	// person of the target the file does not match.
	WithPeople bool
}

// LoadResult counts what an import did, per kind.
type LoadResult struct {
	// Written: items put. AlreadyThere: items the target held identically
	// (an earlier run wrote them). Kept: items whose id the target held
	// with other content, kept as they were. Skipped: request records,
	// OAuth grants, tokens and metadata documents' clients expired by now,
	// the children of kept tickets and kept people (their tokens and
	// grants), the tokens of grants not put, and, without WithPeople,
	// every person, token and connected agent of the file.
	Written, AlreadyThere, Kept, Skipped Counts
	Lines                                int
}

// WrittenTotal is how many items the import wrote.
func (r LoadResult) WrittenTotal() int {
	n := 0
	for _, v := range r.Written {
		n += v
	}
	return n
}

// exportID is the form of a header's export_id: Export writes 24 hex
// digits.
var exportID = regexp.MustCompile(`^[0-9a-f]{1,64}$`)

// ErrNotEmpty is why an import without a merge mode refuses a target.
var ErrNotEmpty = errors.New("the target store already holds a board")

type loader struct {
	ctx    context.Context
	dst    Target
	opts   LoadOptions
	res    LoadResult
	lines  *lineReader
	head   Header
	read   Counts          // items read per kind, for the end line
	spaces map[string]bool // workspaces of the file
	kept   map[string]bool // tickets whose target copy was kept
	// tickets are the ids of the file's tickets: the only ones a
	// relation line may name. relations checks the relations read so
	// far against the rules a relate keeps (relationload.go).
	tickets   map[string]bool
	relations *board.RelationGraph
	// grantsOut are the grants of the file not put (expired by now, the
	// target's copy kept, or their person's kept): their tokens are left
	// out too. grantsIn are the grants this file wrote or found as it has
	// them: the only ones a token line may name.
	grantsOut, grantsIn map[string]bool
	// filePeople are the handles of the file's person lines; ownPeople
	// those of them this file wrote or found as it has them: the only
	// people a token or grant line may name (people.go).
	filePeople, ownPeople map[string]bool
	// webhookKey opens the sealed secrets of the file's webhooks (with
	// people only: webhookformat.go).
	webhookKey []byte
	queue      []queued // items read, not yet written (batch.go)
	queueBytes int      // the queued items' lines, in bytes
	lineBytes  int      // the length of the line just read
}

// Load reads a file written by Export from r and puts every item into
// dst, line by line: each line is checked (format, then the domain's
// rules) before anything of it is written, and the first bad line stops
// the import with its number (a *LineError). Every put writes only what
// is absent, so running an import again, or again after it was stopped,
// writes nothing twice.
func Load(ctx context.Context, dst Target, r io.Reader, opts LoadOptions) (LoadResult, error) {
	im := &loader{ctx: ctx, dst: dst, opts: opts, lines: newLineReader(r), read: Counts{}, spaces: map[string]bool{}, kept: map[string]bool{},
		tickets: map[string]bool{}, relations: board.NewRelationGraph(),
		grantsOut: map[string]bool{}, grantsIn: map[string]bool{}, filePeople: map[string]bool{}, ownPeople: map[string]bool{},
		res: LoadResult{Written: Counts{}, AlreadyThere: Counts{}, Kept: Counts{}, Skipped: Counts{}}}
	err := im.run()
	im.res.Lines = im.lines.n
	return im.res, err
}

func (im *loader) fail(err error) error {
	var le *LineError
	if errors.As(err, &le) {
		return err
	}
	return &LineError{Line: im.lines.n, Err: err}
}

func (im *loader) run() error {
	if err := im.header(); err != nil {
		return err
	}
	// Workspaces come first: all of them are read (a few lines) before
	// anything is written, to judge the target against the whole list.
	var spaces []board.TransferredWorkspace
	var spaceLines []int
	var first *line
	for {
		l, err := im.nextLine()
		if err != nil {
			return err
		}
		if l.Kind != KindWorkspace {
			first = l
			break
		}
		if l.Workspace == nil {
			return im.fail(errors.New("a workspace line without its workspace"))
		}
		if err := l.Workspace.Validate(); err != nil {
			return im.fail(err)
		}
		if im.spaces[l.Workspace.Slug] {
			return im.fail(fmt.Errorf("workspace %s is in the file twice", l.Workspace.Slug))
		}
		im.spaces[l.Workspace.Slug] = true
		spaces = append(spaces, *l.Workspace)
		spaceLines = append(spaceLines, im.lines.n)
	}
	if err := im.checkTarget(); err != nil {
		return err
	}
	held, err := im.heldWorkspaces()
	if err != nil {
		return err
	}
	for i, w := range spaces {
		if have, ok := held[w.Slug]; ok && !board.SameWorkspace(have, w) {
			// Merging: the target's settings are kept even where its
			// workspace never held a ticket (that only a fresh store's
			// seeded workspace gives up: PutWorkspace).
			if err := im.count(KindWorkspace, w.Slug, board.Collision, spaceLines[i]); err != nil {
				return err
			}
			continue
		}
		out, err := im.dst.PutWorkspace(im.ctx, w)
		if err != nil {
			return &LineError{Line: spaceLines[i], Err: fmt.Errorf("workspace %s: %w", w.Slug, err)}
		}
		if err := im.count(KindWorkspace, w.Slug, out, spaceLines[i]); err != nil {
			return err
		}
	}
	// Whatever stops the import, the items queued before it are written
	// first: they come from lines before the one that stopped it.
	for l := first; ; {
		if l.Kind == KindEnd {
			if err := im.flush(); err != nil {
				return err
			}
			return im.end(l)
		}
		if err := im.put(l); err != nil {
			if ferr := im.flush(); ferr != nil {
				return ferr
			}
			return im.fail(err)
		}
		next, err := im.nextLine()
		if err != nil {
			if ferr := im.flush(); ferr != nil {
				return ferr
			}
			return err
		}
		l = next
	}
}

func (im *loader) header() error {
	b, err := im.lines.next()
	if errors.Is(err, io.EOF) {
		return &LineError{Line: 1, Err: errors.New("the file is empty: pass the output of ticket-ledger export")}
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &im.head); err != nil || im.head.Format != Format {
		return &LineError{Line: im.lines.n, Err: fmt.Errorf("not a %s header (%q with a version): the file is not a ticket-ledger export", Format, Format)}
	}
	if im.head.Version != Version {
		return &LineError{Line: im.lines.n, Err: fmt.Errorf("format version %d is not one this program reads (it reads version %d): import it with the ticket-ledger release that exported it, or a newer one", im.head.Version, Version)}
	}
	if !exportID.MatchString(im.head.ExportID) {
		// It names the import's mark in the target (resume.go).
		return &LineError{Line: im.lines.n, Err: errors.New("the header's export_id is missing or not 1-64 hex digits: the file is not a ticket-ledger export")}
	}
	if im.opts.WithPeople && !im.head.WithPeople {
		return &LineError{Line: im.lines.n, Err: errors.New("--with-people was given but the file was exported without people (its header says with_people false); nothing was written: import it without --with-people, or export again with --with-people")}
	}
	return nil
}

// nextLine reads and decodes the next line; the end of the input before
// the end line is a truncated file.
func (im *loader) nextLine() (*line, error) {
	b, err := im.lines.next()
	if errors.Is(err, io.EOF) {
		return nil, &LineError{Line: im.lines.n, Err: errors.New("the file ends here without its end line: it is truncated; export it again (items up to here were written, and a new import of the whole file completes the rest)")}
	}
	if err != nil {
		return nil, err
	}
	im.lineBytes = len(b)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l line
	if err := dec.Decode(&l); err != nil {
		return nil, im.fail(fmt.Errorf("not a valid line of the format: %v", err))
	}
	if l.Kind != KindEnd && !slices.Contains(kinds, l.Kind) {
		return nil, im.fail(fmt.Errorf("unknown kind %q: this program reads %v and end", l.Kind, kinds))
	}
	if l.Kind != KindEnd {
		im.read[l.Kind]++
	}
	return &l, nil
}

// checkTarget refuses a target that holds another board unless a merge
// mode says what to do with it. A target is fresh when it holds no ticket,
// no request record, and only workspaces that never held a ticket (a new
// store's seeded ones); then the import leaves its mark there first
// (resume.go). A target that is not fresh but holds the mark of this
// file's export is an earlier run of this import, stopped: it is resumed.
func (im *loader) checkTarget() error {
	if im.opts.Merge != MergeNone {
		return nil
	}
	fresh, err := im.fresh()
	if err != nil {
		return err
	}
	if fresh {
		return im.leaveMark()
	}
	marked, err := im.marked()
	if err != nil || marked {
		return err
	}
	return fmt.Errorf("%w and no earlier run of this file's import left its mark there; nothing was written: import into an empty store, rerun a stopped import with the same file, or pass --merge=skip (keep the target's copy of every clashing item, add the rest) or --merge=fail (add, but stop at the first clash)", ErrNotEmpty)
}

// heldWorkspaces are the target's workspaces when merging (nil without
// --merge: the target is fresh or an earlier run of this import).
func (im *loader) heldWorkspaces() (map[string]board.TransferredWorkspace, error) {
	if im.opts.Merge == MergeNone {
		return nil, nil
	}
	held := map[string]board.TransferredWorkspace{}
	err := im.dst.TransferWorkspaces(im.ctx, func(w board.TransferredWorkspace) error {
		held[w.Slug] = w
		return nil
	})
	return held, err
}

func (im *loader) fresh() (bool, error) {
	used := errors.New("used")
	err := im.dst.TransferWorkspaces(im.ctx, func(have board.TransferredWorkspace) error {
		if have.Next > 1 {
			return used
		}
		return nil
	})
	if errors.Is(err, used) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return im.dst.BoardEmpty(im.ctx)
}

// count records a put's outcome for the item of line; a clash stops the
// import unless the merge mode keeps the target's copy.
func (im *loader) count(kind, id string, out board.PutOutcome, line int) error {
	switch out {
	case board.Added:
		im.res.Written[kind]++
	case board.AlreadyThere:
		im.res.AlreadyThere[kind]++
	case board.Collision:
		if im.opts.Merge != MergeSkip {
			return &LineError{Line: line, Err: fmt.Errorf("%s %s is in the target store with other content; pass --merge=skip to keep the target's copy and import the rest", kind, id)}
		}
		im.res.Kept[kind]++
		if kind == KindTicket {
			im.kept[id] = true
		}
		if im.opts.Collisions != nil {
			fmt.Fprintf(im.opts.Collisions, "line %d: %s %s is in the target with other content: kept the target's copy\n", line, kind, id)
		}
	}
	return nil
}

func (im *loader) skip(kind string) { im.res.Skipped[kind]++ }

// put checks one item and writes it (or queues it: batch.go).
func (im *loader) put(l *line) error {
	switch l.Kind {
	case KindWorkspace:
		return errors.New("a workspace line after other items: every workspace comes first")
	case KindTicket:
		if l.Ticket == nil {
			return errors.New("a ticket line without its ticket")
		}
		t := l.Ticket.Ticket
		t.Number = l.Ticket.Number
		if err := board.ValidateTransferredTicket(t); err != nil {
			return err
		}
		if !im.spaces[t.Workspace] {
			return fmt.Errorf("ticket %s: its workspace %s is not in the file (workspaces come first)", t.ID, t.Workspace)
		}
		im.tickets[t.ID] = true
		return im.write(KindTicket, t.ID, board.TransferredItem{Ticket: &t})
	case KindRelation:
		return im.putRelation(l)
	case KindNote:
		if l.Note == nil {
			return errors.New("a note line without its note")
		}
		if err := board.ValidateTransferredNote(*l.Note); err != nil {
			return err
		}
		if im.kept[l.Note.TicketID] {
			im.skip(KindNote)
			return nil
		}
		return im.write(KindNote, l.Note.ID, board.TransferredItem{Note: l.Note})
	case KindEvent:
		if l.Event == nil {
			return errors.New("an event line without its event")
		}
		if err := board.ValidateTransferredEvent(*l.Event); err != nil {
			return err
		}
		if !im.spaces[l.Event.Workspace] {
			return fmt.Errorf("event %s: its workspace %s is not in the file", l.Event.ID, l.Event.Workspace)
		}
		if im.kept[l.Event.TicketID] {
			im.skip(KindEvent)
			return nil
		}
		return im.write(KindEvent, l.Event.ID, board.TransferredItem{Event: l.Event})
	case KindInboxItem:
		if l.InboxItem == nil {
			return errors.New("an inbox_item line without its item")
		}
		e := board.InboxEntry{Recipient: l.InboxItem.Recipient, Item: l.InboxItem.InboxItem}
		if err := board.ValidateTransferredInboxEntry(e); err != nil {
			return err
		}
		if !im.spaces[e.Item.Workspace] {
			return fmt.Errorf("inbox item %s: its workspace %s is not in the file", e.Item.ID, e.Item.Workspace)
		}
		if im.kept[e.Item.TicketID] {
			im.skip(KindInboxItem)
			return nil
		}
		return im.write(KindInboxItem, e.Recipient+" "+e.Item.ID, board.TransferredItem{Inbox: &e})
	case KindRequest:
		r := l.Request
		if r == nil {
			return errors.New("a request line without its record")
		}
		if err := board.ValidateTransferredRequest(*r); err != nil {
			return err
		}
		if r.Expired(im.opts.Now) || !board.TransferredTool(r.Tool) || im.kept[recordTicket(*r)] {
			im.skip(KindRequest)
			return nil
		}
		return im.write(KindRequest, r.Key.Principal+" "+r.Key.RequestID, board.TransferredItem{Request: r})
	case KindWebhookKey:
		return im.putWebhookKey(l)
	case KindWebhook:
		return im.putWebhook(l)
	case KindPerson, KindToken, KindOAuthClient, KindOAuthGrant, KindOAuthToken:
		if !im.head.WithPeople {
			return fmt.Errorf("a %s line in a file whose header says it holds no people (with_people false): the file was altered or damaged; export it again", l.Kind)
		}
		if !im.opts.WithPeople {
			im.skip(l.Kind)
			return nil
		}
		if err := im.flush(); err != nil {
			return err
		}
		switch l.Kind {
		case KindPerson:
			return im.putPerson(l)
		case KindToken:
			return im.putToken(l)
		}
		return im.putAgent(l)
	}
	return fmt.Errorf("unknown kind %q", l.Kind)
}

// recordTicket is the ticket a record's call wrote: its id argument, or
// the ticket in its result (a create).
func recordTicket(r ledger.Record) string {
	var args struct {
		ID string `json:"id"`
	}
	if r.Tool != board.ToolCreateTicket && json.Unmarshal(r.Args, &args) == nil && args.ID != "" {
		return args.ID
	}
	var result struct {
		Ticket struct {
			ID string `json:"id"`
		} `json:"ticket"`
	}
	if json.Unmarshal(r.Result, &result) == nil && result.Ticket.ID != "" {
		return result.Ticket.ID
	}
	return noteRecordTicket(r)
}

func (im *loader) storeErr(what string, err error) error {
	if errors.Is(err, board.ErrNotFound) {
		return fmt.Errorf("%s: its workspace or ticket is not in the target store (a parent's line must come before it)", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (im *loader) end(l *line) error {
	want := Counts(l.Counts)
	for _, k := range slices.Sorted(maps.Keys(im.read)) {
		if want[k] != im.read[k] {
			return im.fail(fmt.Errorf("the end line counts %d %s lines but the file holds %d: the file is damaged; export it again", want[k], k, im.read[k]))
		}
	}
	for k, n := range want {
		if im.read[k] != n {
			return im.fail(fmt.Errorf("the end line counts %d %s lines but the file holds %d: the file is damaged; export it again", n, k, im.read[k]))
		}
	}
	if _, err := im.lines.next(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return &LineError{Line: im.lines.n, Err: errors.New("a line after the end line: the file is damaged; export it again")}
	}
	return nil
}
