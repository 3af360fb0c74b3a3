package board

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
	"time"
)

// A claim says who is working on a ticket, until when. It is a lease: once
// until has passed the ticket is free again, with nothing written, so an
// agent that stops half-way holds nothing for long. Claiming answers a
// token that the holder presents to renew, release and make guarded writes
// (update_ticket, move_ticket): two sessions of one principal (two windows
// of one person's agent, everyone behind one local author) cannot share a
// ticket by accident. A claim never changes the ticket's owner.

// Tool names of the claim writes (ledger tool names too).
const (
	ToolClaimTicket   = "claim_ticket"
	ToolClaimNext     = "claim_next"
	ToolReleaseTicket = "release_ticket"
)

// Lease bounds, in seconds.
const (
	MinLeaseSeconds     = 60
	MaxLeaseSeconds     = 3600
	DefaultLeaseSeconds = 900
)

// Claim is a ticket's holder as every answer shows it.
type Claim struct {
	By    string    `json:"by" jsonschema:"who holds the ticket: ai:<name> or human:<handle>"`
	For   string    `json:"for,omitempty" jsonschema:"the person the holder (an agent) works for, if any"`
	Since time.Time `json:"since" jsonschema:"when the claim was taken"`
	Until time.Time `json:"until" jsonschema:"when the lease ends; after it the ticket is free"`
	// TokenHash is the SHA-256 of the holder's token, hex: stores keep it,
	// answers never show it.
	TokenHash string `json:"-"`
}

// LiveAt reports whether the claim still holds at now.
func (c *Claim) LiveAt(now time.Time) bool { return c != nil && now.Before(c.Until) }

// holder names the claim's holder for messages and history.
func (c *Claim) holder() string { return DisplayAuthor(c.By, c.For) }

// heldBy reports whether p is the claim's principal (same author, acting
// for the same person).
func (c *Claim) heldBy(p Principal) bool { return c.By == p.Author && c.For == p.OnBehalfOf }

// tokenMatches reports whether token is the claim's.
func (c *Claim) tokenMatches(token string) bool {
	if token == "" || c.TokenHash == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(hashClaimToken(token)), []byte(c.TokenHash)) == 1
}

// ClaimGrant is the claim as its holder receives it: with the token.
type ClaimGrant struct {
	By    string    `json:"by"`
	For   string    `json:"for,omitempty"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	Token string    `json:"token" jsonschema:"pass it as claim_token to renew (claim_ticket), release (release_ticket) and to update_ticket and move_ticket while you hold the claim; it is shown only here"`
}

// ClaimResult answers claim_ticket and claim_next: the ticket and the claim
// on it, both null when claim_next found nothing to hand out.
type ClaimResult struct {
	RequestID string      `json:"request_id"`
	Replayed  bool        `json:"replayed"`
	Ticket    *Ticket     `json:"ticket" jsonschema:"the claimed ticket; null when claim_next found no ready, unclaimed ticket"`
	Claim     *ClaimGrant `json:"claim" jsonschema:"your claim, with its token; null with ticket"`
}

func (r *ClaimResult) markReplayed() { r.Replayed = true }

// WasReplayed reports whether this claim answers a retry with the first
// call's ticket and token.
func (r ClaimResult) WasReplayed() bool { return r.Replayed }

// ReleaseResult answers release_ticket.
type ReleaseResult struct {
	RequestID string `json:"request_id"`
	Replayed  bool   `json:"replayed"`
	Ticket    Ticket `json:"ticket"`
	// Released: the call ended a live claim (false: there was none left
	// to end, the lease had run out).
	Released bool `json:"released" jsonschema:"true when this call ended a live claim; false when none was left (its lease had run out)"`
}

func (r *ReleaseResult) markReplayed() { r.Replayed = true }

// WasReplayed reports whether this release answers a retry with the first
// call's result.
func (r ReleaseResult) WasReplayed() bool { return r.Replayed }

// ClaimTicketInput claims one ticket, or renews the caller's claim on it.
type ClaimTicketInput struct {
	RequestID    string `json:"request_id" jsonschema:"idempotency key: a new unique id for each new claim or renewal; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	ID           string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	LeaseSeconds int    `json:"lease_seconds,omitempty" jsonschema:"how long the claim lasts, 60-3600 seconds, default 900; renew before it ends"`
	ClaimToken   string `json:"claim_token,omitempty" jsonschema:"the token of your live claim on this ticket, to renew it"`
}

// ClaimNextInput hands out the next ticket ready for work.
type ClaimNextInput struct {
	RequestID    string `json:"request_id" jsonschema:"idempotency key: a new unique id for each ticket you ask for; after an error or lost connection call find_request, then retry with the same id and the same arguments to get the same ticket"`
	Workspace    string `json:"workspace" jsonschema:"workspace slug, e.g. inbox"`
	Status       Status `json:"status,omitempty" jsonschema:"candidate (default) or waiting_ai: the open status to take work from"`
	Tag          string `json:"tag,omitempty" jsonschema:"only tickets with this tag"`
	Owner        string `json:"owner,omitempty" jsonschema:"only tickets with this owner (human, human:<handle> or ai:<name>)"`
	LeaseSeconds int    `json:"lease_seconds,omitempty" jsonschema:"how long the claim lasts, 60-3600 seconds, default 900"`
}

// ReleaseTicketInput ends a claim, moving the ticket in the same write when
// Status is given.
type ReleaseTicketInput struct {
	RequestID  string `json:"request_id" jsonschema:"idempotency key: a new unique id for each release; after an error or lost connection call find_request, then retry with the same id and the same arguments"`
	ID         string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	Status     Status `json:"status,omitempty" jsonschema:"move the ticket to this status in the same write: candidate, doing, waiting_human, waiting_ai, done or hold"`
	Reason     string `json:"reason,omitempty" jsonschema:"why, up to 1000 characters; kept in the history"`
	ClaimToken string `json:"claim_token,omitempty" jsonschema:"the token claim_ticket or claim_next gave you (a person may leave it out to break someone else's claim)"`
}

// maxClaimToken bounds a claim_token argument: far longer than any token
// the board hands out.
const maxClaimToken = 128

func validateLease(seconds *int) error {
	if *seconds == 0 {
		*seconds = DefaultLeaseSeconds
	}
	if *seconds < MinLeaseSeconds || *seconds > MaxLeaseSeconds {
		return inField("lease_seconds", invalid("lease_seconds %d is out of range %d-%d", *seconds, MinLeaseSeconds, MaxLeaseSeconds))
	}
	return nil
}

func validateClaimToken(token string) error {
	if len(token) > maxClaimToken {
		return inField("claim_token", invalid("claim_token is longer than any token the board gives: pass the token claim_ticket or claim_next answered"))
	}
	return nil
}

// Validate checks the claim and fills the default lease.
func (in *ClaimTicketInput) Validate() error {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return err
	}
	if err := validateLease(&in.LeaseSeconds); err != nil {
		return err
	}
	return validateClaimToken(in.ClaimToken)
}

// Validate checks the filters and fills the defaults.
func (in *ClaimNextInput) Validate() error {
	if err := ValidateSlug(in.Workspace); err != nil {
		return err
	}
	if in.Status == "" {
		in.Status = StatusCandidate
	}
	if !IsOpenStatus(in.Status) {
		return inField("status", invalid("status %q cannot be claimed from: claim_next takes candidate or waiting_ai tickets", clip(string(in.Status))))
	}
	if in.Owner != "" {
		if err := ValidateAuthor("owner", in.Owner); err != nil {
			return err
		}
	}
	if in.Tag != "" && !isTag(in.Tag) {
		return inField("tag", invalid("tag %q must be 1-32 of a-z 0-9 . _ -", clip(in.Tag)))
	}
	return validateLease(&in.LeaseSeconds)
}

// Validate checks the release.
func (in *ReleaseTicketInput) Validate() error {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return err
	}
	if in.Status != "" {
		if err := ValidateStatus(in.Status); err != nil {
			return inField("status", err)
		}
	}
	if err := inField("reason", validateText("reason", in.Reason, 0, MaxReason)); err != nil {
		return err
	}
	return validateClaimToken(in.ClaimToken)
}

// IsOpenStatus reports whether tickets in st wait to be taken up: the
// statuses claim_next hands out from.
func IsOpenStatus(st Status) bool { return st == StatusCandidate || st == StatusWaitingAI }

// newClaimToken is a new random token and its hash.
func newClaimToken() (token, hash string) {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	token = "ct_" + hex.EncodeToString(b)
	return token, hashClaimToken(token)
}

func hashClaimToken(token string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return hex.EncodeToString(sum[:])
}
