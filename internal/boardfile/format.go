// Package boardfile transfers a board between stores as a stream of JSON
// lines: Export writes one store's board, Load puts it into another
// (docs/operations.md, "Moving a board"). Line 1 is a header naming the
// format and its version; then one item per line, each with its kind,
// parents before children (every workspace first, then each workspace's
// tickets, the relations between them, their notes, the workspace's
// history and the inbox items of that history, then request records
// and, when asked for, people, their API tokens and their connected
// agents: OAuth clients and grants, then the grants' tokens; then webhook
// subscriptions, their secrets only with people); the last line
// is "end" with the count of each kind, so a truncated file is told from a
// whole one. The package also owns the stores' part in a move: the
// contracts a store implements to be read and written item by item
// (transferstores.go).
//
// The version changes only when a reader of the previous version would
// misread a file: new kinds and new optional fields keep it, since a reader
// refuses every kind and field it does not know (it stops at that line,
// never skips it), and a file without them reads as before.
package boardfile

import (
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Format names the file format in the header.
const Format = "ticket-ledger-board"

// Version is the version of the format this package writes and reads.
const Version = 1

// MaxLine bounds one line: the largest item the service can write (a
// request record whose arguments and result each carry a ticket with every
// field at its limit, every character escaped) plus a margin
// (board.MaxTransferLine says how it is counted). An import holds at most one
// such line, and refuses a longer one as soon as it has read past the bound.
const MaxLine = board.MaxTransferLine

// Kinds of lines.
const (
	KindWorkspace = "workspace"
	KindTicket    = "ticket"
	// KindRelation is a relation between two tickets of a workspace
	// (blocks, parent), after all of the workspace's tickets.
	KindRelation = "relation"
	KindNote     = "note"
	KindEvent    = "event"
	// KindInboxItem is an item of someone's inbox, with whether it was
	// read, after its workspace's history.
	KindInboxItem = "inbox_item"
	KindRequest   = "request"
	KindPerson    = "person"
	KindToken     = "token"
	// KindOAuthClient, KindOAuthGrant and KindOAuthToken are a connected
	// agent (oauthformat.go): a client before the first grant that names
	// it, every grant before the tokens.
	KindOAuthClient = "oauth_client"
	KindOAuthGrant  = "oauth_grant"
	KindOAuthToken  = "oauth_token"
	// KindWebhookKey and KindWebhook are webhook subscriptions
	// (webhookformat.go): the key that opens their sealed secrets (only
	// with people), then the subscriptions.
	KindWebhookKey = "webhook_key"
	KindWebhook    = "webhook"
	KindEnd        = "end"
)

// kinds lists the item kinds in the order a file holds them.
var kinds = []string{KindWorkspace, KindTicket, KindRelation, KindNote, KindEvent, KindInboxItem, KindRequest, KindPerson, KindToken,
	KindOAuthClient, KindOAuthGrant, KindOAuthToken, KindWebhookKey, KindWebhook}

// Header is line 1.
type Header struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
	// Workspace is the one workspace exported, or "" for all.
	Workspace  string `json:"workspace,omitempty"`
	WithPeople bool   `json:"with_people"`
	// ExportID names this export: an import stopped part way leaves a
	// mark under it in the target, by which a new run of the same file
	// resumes instead of refusing a target that is no longer empty.
	ExportID string `json:"export_id"`
}

// line is every other line: its kind and the item under the kind's name.
type line struct {
	Kind        string                      `json:"kind"`
	Workspace   *board.TransferredWorkspace `json:"workspace,omitempty"`
	Ticket      *transferredTicket          `json:"ticket,omitempty"`
	Relation    *board.TransferredRelation  `json:"relation,omitempty"`
	Note        *board.Note                 `json:"note,omitempty"`
	Event       *board.Event                `json:"event,omitempty"`
	InboxItem   *transferredInboxItem       `json:"inbox_item,omitempty"`
	Request     *ledger.Record              `json:"request,omitempty"`
	Person      *transferredPerson          `json:"person,omitempty"`
	Token       *transferredToken           `json:"token,omitempty"`
	OAuthClient *transferredClient          `json:"oauth_client,omitempty"`
	OAuthGrant  *transferredGrant           `json:"oauth_grant,omitempty"`
	OAuthToken  *transferredOAuthToken      `json:"oauth_token,omitempty"`
	WebhookKey  []byte                      `json:"webhook_key,omitempty"`
	Webhook     *transferredWebhook         `json:"webhook,omitempty"`
	Counts      map[string]int              `json:"counts,omitempty"`
}

// transferredTicket is a ticket with its number, which the ticket's own JSON
// form leaves out (it is in the id).
type transferredTicket struct {
	board.Ticket
	Number int64 `json:"number"`
}

// transferredInboxItem is an inbox item with whose inbox it is in.
type transferredInboxItem struct {
	Recipient string `json:"recipient"`
	board.InboxItem
}

// transferredPerson is a person with the fields their JSON form keeps out of
// answers: the password's hash (never the password) and the moment
// before which their sessions are void.
type transferredPerson struct {
	Handle               string     `json:"handle"`
	Name                 string     `json:"name"`
	Role                 board.Role `json:"role"`
	PasswordHash         string     `json:"password_hash"`
	Disabled             bool       `json:"disabled"`
	CreatedAt            time.Time  `json:"created_at"`
	CredentialsNotBefore time.Time  `json:"credentials_not_before,omitzero"`
}

func personOf(p board.Person) *transferredPerson {
	return &transferredPerson{Handle: p.Handle, Name: p.Name, Role: p.Role, PasswordHash: p.PasswordHash,
		Disabled: p.Disabled, CreatedAt: p.CreatedAt, CredentialsNotBefore: p.CredentialsNotBefore}
}

func (m transferredPerson) person() board.Person {
	return board.Person{Handle: m.Handle, Name: m.Name, Role: m.Role, PasswordHash: m.PasswordHash,
		Disabled: m.Disabled, CreatedAt: m.CreatedAt, CredentialsNotBefore: m.CredentialsNotBefore}
}

// transferredToken is an API token: its hash, never the secret.
type transferredToken struct {
	ID         string     `json:"id"`
	Hash       string     `json:"hash"`
	Handle     string     `json:"handle"`
	Agent      string     `json:"agent,omitempty"`
	Label      string     `json:"label,omitempty"`
	CreatedBy  string     `json:"created_by"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

func tokenOf(t board.APIToken) *transferredToken {
	return &transferredToken{ID: t.ID, Hash: t.Hash, Handle: t.Handle, Agent: t.Agent, Label: t.Label,
		CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

func (m transferredToken) token() board.APIToken {
	return board.APIToken{ID: m.ID, Hash: m.Hash, Handle: m.Handle, Agent: m.Agent, Label: m.Label,
		CreatedBy: m.CreatedBy, CreatedAt: m.CreatedAt, LastUsedAt: m.LastUsedAt, RevokedAt: m.RevokedAt}
}

// Counts are items per kind.
type Counts map[string]int

// Kinds lists the item kinds in the order a file holds them.
func Kinds() []string { return append([]string(nil), kinds...) }
