package board

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// ActivityList is one page of the activity feed.
type ActivityList struct {
	Workspace string  `json:"workspace,omitempty" jsonschema:"the workspace read; absent for the feed of every workspace you may see"`
	Events    []Event `json:"events" jsonschema:"events newest first"`
	// Latest is the time of the newest event of the page.
	Latest     *time.Time `json:"latest" jsonschema:"time of the newest event on this page; on the first page, pass it as since next time to see only what changed after it; null when the page is empty"`
	NextCursor *string    `json:"next_cursor" jsonschema:"older events match: pass this back as cursor to read them; null when this page reaches the oldest match"`
	Partial    bool       `json:"partial,omitempty" jsonschema:"true when this page holds fewer events than limit because the call reached a bound (the events one call may examine for a filter, or the size of one answer) before filling it: more may match, call again with next_cursor"`

	filter string      // what cursors made when the page is cut to size are bound to
	seal   *cursorSeal // seals them
}

// toolListActivity names the tool in the hints of errors.
const toolListActivity = "list_activity"

// ListActivity pages the activity feed newest first: one workspace's
// events, or (without a workspace) every workspace's the caller may see.
// For AI callers a workspace hidden from AI does not exist, decided by its
// current policy, so events written before it was hidden are not shown.
func (s *Service) ListActivity(ctx context.Context, in ListActivityInput) (ActivityList, error) {
	since, err := in.validate()
	if err != nil {
		return ActivityList{}, err
	}
	q := FeedQuery{Workspace: in.Workspace, Readable: readablePolicies(PrincipalFrom(ctx)), Since: since,
		Author: in.By, Type: in.Kind, Limit: in.Limit, MaxScan: DefaultScan}
	filter := feedFilter(in)
	seal, err := s.cursors(ctx)
	if err != nil {
		return ActivityList{}, err
	}
	if in.Cursor != "" {
		if q.Before, err = decodeFeedCursor(seal, in.Cursor, filter); err != nil {
			return ActivityList{}, err
		}
	}
	page, err := s.store.ListActivity(ctx, q)
	var denied *PolicyError
	if in.Workspace != "" && (errors.Is(err, ErrNotFound) || errors.As(err, &denied)) {
		return ActivityList{}, workspaceNotFound(in.Workspace)
	}
	if err != nil {
		return ActivityList{}, s.storeFailure(err)
	}
	out := ActivityList{Workspace: in.Workspace, Events: nonNilEvents(page.Events), Partial: page.Partial, filter: filter, seal: seal}
	if page.More && page.Next != nil {
		out.NextCursor = encodeFeedCursor(seal, *page.Next, filter)
	}
	out.setLatest()
	fitEstimated(&out)
	return out, nil
}

// ListFeed is ListActivity for every workspace the caller may see.
func (s *Service) ListFeed(ctx context.Context, in FeedInput) (ActivityList, error) {
	return s.ListActivity(ctx, in.Activity())
}

func (l *ActivityList) setLatest() {
	l.Latest = nil
	if len(l.Events) > 0 {
		at := l.Events[0].At
		l.Latest = &at
	}
}

// A feed cursor is the position to continue before, sealed
// (cursorseal.go) and bound to the filters it was made for, so reusing it
// with others is refused instead of silently skipping events. The store
// resolves its position only among the events the caller may read.
type feedCursor struct {
	At     time.Time `json:"a"`
	ID     string    `json:"i"`
	Filter string    `json:"f"`
}

func feedFilter(in ListActivityInput) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "feed\x00%s\x00%s\x00%s\x00%s", in.Workspace, in.Since, in.By, in.Kind))
	return base64.RawURLEncoding.EncodeToString(sum[:8])
}

func encodeFeedCursor(seal *cursorSeal, p Position, filter string) *string {
	s := seal.seal(cursorFeed, feedCursor{At: p.At.UTC(), ID: p.ID, Filter: filter})
	return &s
}

func decodeFeedCursor(seal *cursorSeal, s, filter string) (*Position, error) {
	var c feedCursor
	if !seal.open(cursorFeed, s, &c) || c.ID == "" || c.Filter == "" {
		return nil, forgedCursor(toolListActivity)
	}
	if c.Filter != filter {
		return nil, invalid("cursor was issued for other filters; repeat the same workspace, since, by and kind, or omit cursor to start from the newest")
	}
	return &Position{At: c.At, ID: c.ID}, nil
}

// Fit keeps the newest events that fit and points next_cursor after the
// last one kept.
func (l *ActivityList) Fit(size Sizer, bound int) bool {
	if size(l) <= bound {
		return true
	}
	if len(l.Events) == 0 {
		return false
	}
	shell := *l
	shell.Events = []Event{}
	shell.NextCursor = encodeFeedCursor(l.seal, Position{At: l.Events[0].At, ID: "placeholder-of-an-id-as-long-as-a-uuid"}, l.filter)
	shell.Partial = true
	keep := firstThatFit(size, size(&shell)+64, bound, l.Events)
	if keep == 0 {
		return false
	}
	if keep < len(l.Events) {
		l.Events = l.Events[:keep]
		last := l.Events[keep-1]
		l.NextCursor, l.Partial = encodeFeedCursor(l.seal, Position{At: last.At, ID: last.ID}, l.filter), true
	}
	return true
}
