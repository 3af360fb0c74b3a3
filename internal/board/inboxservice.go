package board

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/google/uuid"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// ToolMarkInboxRead is mark_inbox_read's ledger tool name.
const ToolMarkInboxRead = "mark_inbox_read"

// MaxMarkIDs bounds the ids one mark_inbox_read names.
const MaxMarkIDs = 100

// ListInboxInput asks for a page of the caller's own inbox.
type ListInboxInput struct {
	UnreadOnly bool   `json:"unread_only,omitempty" jsonschema:"only the items not yet marked read"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page; omit for the newest"`
	Limit      int    `json:"limit,omitempty" jsonschema:"items per page, 1-100 (default 20)"`
}

// InboxList is a page of an inbox with the unread count.
type InboxList struct {
	Items []InboxItem `json:"items" jsonschema:"newest first"`
	// Unread counts unread items up to UnreadCountCap.
	Unread int `json:"unread" jsonschema:"unread items, counted up to 100"`
	// UnreadLabel is Unread as shown: "99+" from 100 on.
	UnreadLabel string  `json:"unread_label" jsonschema:"the unread count as the board shows it: 0-99, or 99+"`
	NextCursor  *string `json:"next_cursor" jsonschema:"pass as cursor for the next page; null on the last page"`
}

// MarkInboxReadInput marks items of the caller's inbox read.
type MarkInboxReadInput struct {
	RequestID string   `json:"request_id" jsonschema:"idempotency key: a new unique id for each call; a retry with the same id answers the first answer"`
	IDs       []string `json:"ids,omitempty" jsonschema:"ids of inbox items to mark read (up to 100)"`
	All       bool     `json:"all,omitempty" jsonschema:"mark every item read instead of ids"`
}

// MarkInboxReadResult says how many items changed and what is left unread.
type MarkInboxReadResult struct {
	RequestID   string `json:"request_id"`
	Marked      int    `json:"marked" jsonschema:"items that were unread and are now read"`
	Unread      int    `json:"unread" jsonschema:"unread items left, counted up to 100"`
	UnreadLabel string `json:"unread_label"`
	Replayed    bool   `json:"replayed"`
}

func (r *MarkInboxReadResult) markReplayed() { r.Replayed = true }

// WasReplayed says the answer is a stored one (REST: Idempotent-Replayed).
func (r MarkInboxReadResult) WasReplayed() bool { return r.Replayed }

// UnreadLabel shows an unread count: the number, or "99+" once it reaches
// the cap (a store counts no further).
func UnreadLabel(n int) string {
	if n >= UnreadCountCap {
		return strconv.Itoa(UnreadCountCap-1) + "+"
	}
	return strconv.Itoa(n)
}

// inboxOf is the caller's inbox: a person's, or an agent's with its
// person (ai:claude for alice reads what names alice's claude).
func (s *Service) inboxOf(p Principal) (string, error) {
	if err := requireAuthor(p); err != nil {
		return "", err
	}
	if s.inbox == nil {
		return "", Errorf(CodeInvalid, "this server keeps no inbox; read the workspaces' activity instead (list_activity)")
	}
	return p.LedgerKey(), nil
}

// ListInbox answers a page of the caller's own inbox, newest first. For an
// agent, items of workspaces hidden from AI are left out (the page may then
// hold fewer than limit and still have a next_cursor).
func (s *Service) ListInbox(ctx context.Context, in ListInboxInput) (InboxList, error) {
	p := PrincipalFrom(ctx)
	recipient, err := s.inboxOf(p)
	if err != nil {
		return InboxList{}, err
	}
	limit, err := pageLimit(in.Limit)
	if err != nil {
		return InboxList{}, err
	}
	if in.Cursor != "" {
		if _, err := uuid.Parse(in.Cursor); err != nil {
			return InboxList{}, invalid("cursor %q is not one list_inbox gave: pass next_cursor unchanged, or omit it for the newest items", clip(in.Cursor))
		}
	}
	items, more, err := s.inbox.ListInbox(ctx, InboxQuery{Recipient: recipient, UnreadOnly: in.UnreadOnly, Before: in.Cursor, Limit: limit})
	if err != nil {
		return InboxList{}, s.storeFailure(err)
	}
	out := InboxList{Items: []InboxItem{}}
	if more && len(items) > 0 {
		next := items[len(items)-1].ID
		out.NextCursor = &next
	}
	if out.Items, err = s.visibleItems(ctx, p, items); err != nil {
		return InboxList{}, err
	}
	if out.Unread, err = s.inbox.CountUnread(ctx, recipient, UnreadCountCap); err != nil {
		return InboxList{}, s.storeFailure(err)
	}
	out.UnreadLabel = UnreadLabel(out.Unread)
	return out, nil
}

// UnreadCount answers how many items of the caller's own inbox are unread,
// counted up to UnreadCountCap (UnreadLabel shows it). The board's header
// shows it on every page and an open page polls it, so it is the capped
// count alone: one store read.
func (s *Service) UnreadCount(ctx context.Context) (int, error) {
	recipient, err := s.inboxOf(PrincipalFrom(ctx))
	if err != nil {
		return 0, err
	}
	n, err := s.inbox.CountUnread(ctx, recipient, UnreadCountCap)
	if err != nil {
		return 0, s.storeFailure(err)
	}
	return n, nil
}

// visibleItems leaves out, for an agent, the items of workspaces hidden
// from AI (as they are now: a workspace hidden after the item was written
// hides it too).
func (s *Service) visibleItems(ctx context.Context, p Principal, items []InboxItem) ([]InboxItem, error) {
	out := []InboxItem{}
	policies := map[string]AIPolicy{}
	for _, it := range items {
		if p.IsAI() {
			policy, seen := policies[it.Workspace]
			if !seen {
				var err error
				policy, err = s.store.WorkspacePolicy(ctx, it.Workspace)
				if err != nil && !errors.Is(err, ErrNotFound) {
					return nil, s.storeFailure(err)
				}
				if err != nil {
					policy = PolicyHidden // gone: nothing to show
				}
				policies[it.Workspace] = policy
			}
			if !readable(p, policy) {
				continue
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// pageLimit checks a page size (0: DefaultLimit).
func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 1 || limit > MaxLimit:
		return 0, invalid("limit must be 1-%d, not %d", MaxLimit, limit)
	}
	return limit, nil
}

// Validate checks a mark: ids or all, not both.
func (in MarkInboxReadInput) Validate() error {
	switch {
	case in.All && len(in.IDs) > 0:
		return invalid("give ids or all, not both")
	case !in.All && len(in.IDs) == 0:
		return invalid("give the ids of the items to mark read, or all: true")
	case len(in.IDs) > MaxMarkIDs:
		return invalid("at most %d ids at once, not %d: mark the rest in another call, or pass all: true", MaxMarkIDs, len(in.IDs))
	}
	for _, id := range in.IDs {
		if _, err := uuid.Parse(id); err != nil {
			return invalid("ids: %q is not an inbox item's id (list_inbox answers them)", clip(id))
		}
	}
	return nil
}

// MarkInboxRead marks items of the caller's own inbox read, exactly once
// per request_id: a retry answers the first answer.
func (s *Service) MarkInboxRead(ctx context.Context, in MarkInboxReadInput) (MarkInboxReadResult, error) {
	if err := in.Validate(); err != nil {
		return MarkInboxReadResult{}, err
	}
	p := PrincipalFrom(ctx)
	recipient, err := s.inboxOf(p)
	if err != nil {
		return MarkInboxReadResult{}, err
	}
	rec, canonical, err := s.prepare(p, ToolMarkInboxRead, in.RequestID, in)
	if err != nil {
		return MarkInboxReadResult{}, err
	}
	lc := ledgerCall{p: p, tool: ToolMarkInboxRead, canonical: canonical, fingerprint: rec.Fingerprint}
	owner := uuid.New().String()
	claim := rec
	claim.Status, claim.Owner, claim.LeaseUntil = ledger.StatusRunning, owner, rec.CreatedAt.Add(claimLease)
	if err := s.store.ClaimRequest(ctx, claim, rec.CreatedAt); err != nil {
		var exists *ledger.ExistsError
		if !errors.As(err, &exists) {
			return MarkInboxReadResult{}, s.storeFailure(err)
		}
		raw, err := s.verdict(exists.Record, lc)
		if err != nil {
			return MarkInboxReadResult{}, err
		}
		return decodeResult[MarkInboxReadResult](s, raw, true)
	}
	// Claimed: finish even if the caller stops waiting, so the record says
	// what was done. Marking twice changes nothing, so a take-over of an
	// abandoned claim may mark again.
	work := context.WithoutCancel(ctx)
	res := MarkInboxReadResult{RequestID: in.RequestID}
	if in.All {
		res.Marked, err = s.inbox.MarkAllInboxRead(work, recipient)
	} else {
		res.Marked, err = s.inbox.MarkInboxRead(work, recipient, in.IDs)
	}
	if err == nil {
		res.Unread, err = s.inbox.CountUnread(work, recipient, UnreadCountCap)
	}
	if err != nil {
		if rerr := s.store.ReleaseRequest(work, rec.Key, owner); rerr != nil {
			s.log.Warn("releasing a mark's request record after it failed", "err", rerr)
		}
		return MarkInboxReadResult{}, s.storeFailure(err)
	}
	res.UnreadLabel = UnreadLabel(res.Unread)
	raw, err := json.Marshal(res)
	if err == nil {
		err = s.store.CompleteRequest(work, rec.Key, owner, raw)
	}
	if err != nil {
		return MarkInboxReadResult{}, s.storeFailure(err)
	}
	return res, nil
}
