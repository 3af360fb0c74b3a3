package dynamo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Attributes of tickets, notes, events and workspaces. Tickets, notes and
// events keep their whole value as JSON in doc (it reads back exactly, nil
// and empty lists included); the other attributes exist for keys, filters
// and conditions only.
const (
	attrDoc     = "doc"
	attrVersion = "version"
	attrStatus  = "status"
	attrOwnerTk = "owner"
	// attrTags holds the tags as one string, "|a|b|", so that a tag filter
	// is contains(tags, "|a|") and matches whole tags only ('|' is not a
	// tag character). It is always present: contains() on a missing
	// attribute is an error on minidyn (false on DynamoDB), and minidyn
	// also mishandles empty lists.
	attrTags   = "tags"
	attrDue    = "due"  // YYYY-MM-DD, absent when none
	attrSlug   = "slug" // workspace
	attrName   = "name" // workspace
	attrPolicy = "ai_policy"
	// attrNextNum: on a workspace item, where its counter item starts
	// (numbers.go); no write moves it but an import's.
	attrNextNum = "next_number"
	// n_<status>: tickets per status, on count shards (and, from before
	// shards, on the workspace item; reads add both).
	countPrefix   = "n_"
	typeTicket    = "ticket"
	typeNote      = "note"
	typeEvent     = "event"
	typeWorkspace = "workspace"
	// typeCountShard: a count shard (countshards.go).
	typeCountShard = "count_shard"
)

func countAttr(s board.Status) string { return countPrefix + string(s) }

// ticketItem is the full item of a ticket, with the index keys that place it
// in the workspace listing, the status listing and (if owned) the owner
// listing.
func ticketItem(t board.Ticket) (map[string]types.AttributeValue, error) {
	doc, err := ticketDoc(t)
	if err != nil {
		return nil, err
	}
	item := ticketKey(t.ID)
	item[attrType] = str(typeTicket)
	putBlob(item, attrDoc, doc)
	item[attrNum] = num(t.Number)
	item[attrNumKey] = numberKey(t.Number)
	item[attrVersion] = num(t.Version)
	item[attrStatus] = str(string(t.Status))
	item[attrWS] = str(t.Workspace)
	item[attrWSStatus] = str(t.Workspace + "#" + string(t.Status))
	if t.Owner != nil && *t.Owner != "" {
		item[attrOwnerTk] = str(*t.Owner)
		item[attrWSOwner] = str(t.Workspace + "#" + *t.Owner)
	}
	if t.Due != nil && *t.Due != "" {
		item[attrDue] = str(*t.Due)
		if t.Status != board.StatusDone {
			// Open with a due date: in the open-due index, which the
			// summary's due_soon reads earliest first.
			item[attrDueWS] = str(t.Workspace)
			item[attrDueKey] = str(*t.Due + "#" + paddedNumber(t.Number))
		}
	}
	item[attrTags] = str(tagsValue(t.Tags))
	putClaimAttrs(item, t)
	if t.OpenBlockers != 0 {
		item[attrOpenBlockers] = num(int64(t.OpenBlockers))
	}
	return item, nil
}

// tagItem indexes one tag of a ticket: the tickets_by_tag index (keys only)
// lists a workspace's tickets with a tag, newest first. A ticket's tag items
// are written and deleted in the transaction that sets its tags.
func tagItem(t board.Ticket, tag string) map[string]types.AttributeValue {
	item := key(pkTagsPrefix+t.ID, tag)
	item[attrWSTag] = str(t.Workspace + "#" + tag)
	item[attrNumKey] = numberKey(t.Number)
	return item
}

// tagKey is the key of a ticket's tag item.
func tagKey(id, tag string) map[string]types.AttributeValue { return key(pkTagsPrefix+id, tag) }

func tagsValue(tags []string) string { return "|" + strings.Join(tags, "|") + "|" }

func decodeTicket(item map[string]types.AttributeValue) (board.Ticket, error) {
	t, err := decodeTicketDoc(item)
	if err != nil {
		return t, err
	}
	t.Number = getN(item, attrNum) // not part of the JSON form
	t.OpenBlockers = int(getN(item, attrOpenBlockers))
	return t, nil
}

func noteItem(n board.Note) (map[string]types.AttributeValue, error) {
	doc, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	item := key(pkTicketPrefix+n.TicketID, skNotePrefix+orderTime(n.CreatedAt)+"#"+n.ID)
	item[attrType] = str(typeNote)
	putBlob(item, attrDoc, doc)
	return item, nil
}

// eventItem stores a ticket's event in the ticket's partition (so
// get_ticket reads it with the ticket) and a workspace's own event in the
// workspace's event partition; both carry the events index keys.
func eventItem(e board.Event) (map[string]types.AttributeValue, error) {
	doc, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	order := orderTime(e.At) + "#" + e.ID
	pk := pkWSEventsPrefix + e.Workspace
	if e.TicketID != "" {
		pk = pkTicketPrefix + e.TicketID
	}
	item := key(pk, skEventPrefix+order)
	item[attrType] = str(typeEvent)
	putBlob(item, attrDoc, doc)
	item[attrEventWS] = str(e.Workspace)
	item[attrEventOrder] = str(order)
	return item, nil
}

func decodeDoc[T any](item map[string]types.AttributeValue) (T, error) {
	var v T
	doc, err := getBlob(item, attrDoc)
	if err == nil {
		err = json.Unmarshal(doc, &v)
	}
	if err != nil {
		return v, fmt.Errorf("dynamo: %s %s: %w", getS(item, attrPK), getS(item, attrSK), err)
	}
	return v, nil
}

// workspaceItem is a new workspace: no tickets yet, numbering starts at 1.
func workspaceItem(w board.Workspace) map[string]types.AttributeValue {
	item := workspaceKey(w.Slug)
	item[attrType] = str(typeWorkspace)
	item[attrSlug] = str(w.Slug)
	item[attrName] = str(w.Name)
	item[attrPolicy] = str(string(w.AIPolicy))
	item[attrNextNum] = num(1)
	return item
}

// workspaceState is what a workspace item says.
type workspaceState struct {
	Workspace board.Workspace
	Next      int64
}

func decodeWorkspace(item map[string]types.AttributeValue) workspaceState {
	w := board.Workspace{
		Slug:     getS(item, attrSlug),
		Name:     getS(item, attrName),
		AIPolicy: board.AIPolicy(getS(item, attrPolicy)),
		Counts:   map[board.Status]int{},
	}
	for _, st := range board.Statuses {
		if n := getN(item, countAttr(st)); n != 0 {
			w.Counts[st] = int(n)
		}
	}
	return workspaceState{Workspace: w, Next: getN(item, attrNextNum)}
}
