package board

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// A put that finds an item under its id compares the two: the same item
// (a rerun or a resumed import wrote it) is no collision. Stores read back
// empty lists as nil or empty, and times in UTC, so the comparison is of
// the values, not of their encodings.

// SameTicket reports whether two tickets are the same, field by field.
func SameTicket(a, b Ticket) bool {
	return a.ID == b.ID && a.Workspace == b.Workspace && a.Number == b.Number && a.Title == b.Title &&
		a.Body == b.Body && a.Status == b.Status && a.Priority == b.Priority && sameString(a.Owner, b.Owner) &&
		sameString(a.Due, b.Due) && slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Links, b.Links) &&
		a.CreatedBy == b.CreatedBy && a.CreatedFor == b.CreatedFor && a.CreatedAt.Equal(b.CreatedAt) &&
		a.UpdatedAt.Equal(b.UpdatedAt) && sameTime(a.CompletedAt, b.CompletedAt) && a.URL == b.URL && a.Version == b.Version &&
		sameClaim(a.Claim, b.Claim)
}

// sameClaim compares claims as answers show them: the token's hash is a
// store's own and does not travel.
func sameClaim(a, b *Claim) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.By == b.By && a.For == b.For && a.Since.Equal(b.Since) && a.Until.Equal(b.Until)
}

// SameNote reports whether two notes are the same.
func SameNote(a, b Note) bool {
	return a.ID == b.ID && a.TicketID == b.TicketID && a.Body == b.Body && a.Author == b.Author &&
		a.Source == b.Source && a.CreatedAt.Equal(b.CreatedAt) && a.OnBehalfOf == b.OnBehalfOf &&
		sameTime(a.EditedAt, b.EditedAt) && sameRedaction(a.Redacted, b.Redacted)
}

func sameRedaction(a, b *NoteRedaction) bool {
	return a == nil && b == nil || a != nil && b != nil && a.By == b.By && a.Reason == b.Reason && a.At.Equal(b.At)
}

// SameEvent reports whether two events are the same.
func SameEvent(a, b Event) bool {
	return a.ID == b.ID && a.Workspace == b.Workspace && a.TicketID == b.TicketID && a.Type == b.Type &&
		slices.Equal(a.Fields, b.Fields) && a.From == b.From && a.To == b.To && a.Reason == b.Reason &&
		a.NoteID == b.NoteID && a.Holder == b.Holder && slices.Equal(a.Mentions, b.Mentions) && slices.Equal(a.Inbox, b.Inbox) && a.Author == b.Author && a.OnBehalfOf == b.OnBehalfOf && a.Source == b.Source &&
		a.RequestID == b.RequestID && a.At.Equal(b.At)
}

// SameRecord reports whether two request records are the same.
func SameRecord(a, b ledger.Record) bool {
	return a.Key == b.Key && a.Tool == b.Tool && a.Fingerprint == b.Fingerprint && sameJSON(a.Args, b.Args) &&
		a.Status == b.Status && sameJSON(a.Result, b.Result) && a.Owner == b.Owner &&
		a.LeaseUntil.Equal(b.LeaseUntil) && a.CreatedAt.Equal(b.CreatedAt) && a.ExpiresAt.Equal(b.ExpiresAt)
}

// SameWorkspace reports whether a stored workspace is the moved one's
// settings; its counter may have moved on since.
func SameWorkspace(a, b TransferredWorkspace) bool {
	return a.Slug == b.Slug && a.Name == b.Name && a.AIPolicy == b.AIPolicy
}

func sameString(a, b *string) bool {
	return (a == nil || *a == "") == (b == nil || *b == "") && (a == nil || b == nil || *a == *b)
}

func sameTime(a, b *time.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}

// sameJSON compares stored JSON by value: an empty and a missing value are
// the same, and so are two encodings of one value.
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 || bytes.Equal(a, b) {
		return len(a) == len(b) || bytes.Equal(a, b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}
