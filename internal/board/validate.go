package board

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of the data (docs/architecture.md, "Data").
const (
	MaxTitle     = 200
	MaxBody      = 20000
	MaxNoteBody  = 10000
	MaxTags      = 20
	MaxLinks     = 20
	MaxLinkRef   = 2000
	MaxLinkTitle = 200
	MaxReason    = 1000
	MaxQuery     = 200
	DefaultLimit = 20
	MaxLimit     = 100
)

var linkKinds = []string{"article", "task", "url"}

func invalid(format string, args ...any) *Error { return Errorf(CodeInvalid, format, args...) }

// ValidateSlug checks a workspace slug.
func ValidateSlug(slug string) error {
	if slug == "" {
		return invalid("workspace is required; call list_workspaces to see valid slugs")
	}
	if !isSlug(slug) {
		return invalid("workspace %q is not a valid slug (lowercase letters, digits and -, at most 40); call list_workspaces to see valid slugs", clip(slug))
	}
	return nil
}

// ParseTicketID splits "<workspace>-<n>".
func ParseTicketID(id string) (workspace string, number int64, err error) {
	slug, digits, ok := splitTicketID(id)
	if !ok {
		return "", 0, invalid("ticket id %q is not of the form <workspace>-<number>, e.g. inbox-21; call list_tickets to find ids", clip(id))
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return "", 0, invalid("ticket id %q has a number too large; call list_tickets to find ids", clip(id))
	}
	return slug, n, nil
}

// ValidateAuthor checks an author or owner value: "human" (some person),
// "human:<handle>" (a person) or "ai:<name>".
func ValidateAuthor(field, v string) error {
	if v == "human" || isAIName(v) || isPersonAuthor(v) {
		return nil
	}
	return invalid("%s %q must be \"human\", \"human:<handle>\" or \"ai:<name>\" (name: letters, digits, . _ -, at most 64)", field, clip(v))
}

func validateText(field, v string, min, max int) error {
	if !utf8.ValidString(v) {
		return invalid("%s is not valid UTF-8", field)
	}
	n := utf8.RuneCountInString(v)
	if n < min {
		if min == 1 {
			return invalid("%s must not be empty", field)
		}
		return invalid("%s must be at least %d characters", field, min)
	}
	if n > max {
		return invalid("%s is %d characters long; the limit is %d", field, n, max)
	}
	return nil
}

func validateTitle(v string) error {
	if err := validateText("title", v, 1, MaxTitle); err != nil {
		return err
	}
	if strings.TrimSpace(v) == "" {
		return invalid("title must not be blank")
	}
	if err := checkOneLine("title", v); err != nil {
		return err
	}
	return checkVisible("title", v)
}

func validatePriority(p Priority) error {
	if slices.Contains(Priorities, p) {
		return nil
	}
	return invalid("priority %q is not one of low, normal, high, urgent", clip(string(p)))
}

// ValidateStatus checks a status value.
func ValidateStatus(s Status) error {
	if slices.Contains(Statuses, s) {
		return nil
	}
	return invalid("status %q is not one of candidate, doing, waiting_human, waiting_ai, done, hold", clip(string(s)))
}

func validateDue(v string) error {
	if _, err := time.Parse(time.DateOnly, v); err != nil || len(v) != 10 {
		return invalid("due %q is not a date of the form YYYY-MM-DD", clip(v))
	}
	return nil
}

func validateTags(tags []string) error {
	if len(tags) > MaxTags {
		return invalid("%d tags given; the limit is %d", len(tags), MaxTags)
	}
	for i, t := range tags {
		if !isTag(t) {
			return invalid("tag %q must be 1-32 of a-z 0-9 . _ -", clip(t))
		}
		if slices.Contains(tags[:i], t) {
			return invalid("tag %q is given twice", t)
		}
	}
	return nil
}

func validateLinks(links []Link) error {
	if len(links) > MaxLinks {
		return invalid("%d links given; the limit is %d", len(links), MaxLinks)
	}
	for i, l := range links {
		if !slices.Contains(linkKinds, l.Kind) {
			return invalid("links[%d].kind %q is not one of article, task, url", i, clip(l.Kind))
		}
		if err := validateText(fmt.Sprintf("links[%d].ref", i), l.Ref, 1, MaxLinkRef); err != nil {
			return err
		}
		if err := validateText(fmt.Sprintf("links[%d].title", i), l.Title, 0, MaxLinkTitle); err != nil {
			return err
		}
		if err := checkOneLine(fmt.Sprintf("links[%d].title", i), l.Title); err != nil {
			return err
		}
		if l.Kind == "url" {
			u, err := url.Parse(l.Ref)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return invalid("links[%d].ref %q must be an absolute http or https URL for kind url", i, clip(l.Ref))
			}
		}
	}
	return nil
}

// clip keeps error messages short when echoing a bad value.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 64 {
		return s
	}
	return string([]rune(s)[:64]) + "…"
}

// Validate checks every field and fills defaults.
func (in *CreateTicketInput) Validate() error {
	if err := ValidateSlug(in.Workspace); err != nil {
		return err
	}
	if err := validateTitle(in.Title); err != nil {
		return inField("title", err)
	}
	if err := validateText("body", in.Body, 0, MaxBody); err != nil {
		return inField("body", err)
	}
	if in.Priority == "" {
		in.Priority = PriorityNormal
	}
	if err := validatePriority(in.Priority); err != nil {
		return inField("priority", err)
	}
	if in.Owner != "" {
		if err := ValidateAuthor("owner", in.Owner); err != nil {
			return inField("owner", err)
		}
	}
	if in.Due != "" {
		if err := validateDue(in.Due); err != nil {
			return inField("due", err)
		}
	}
	if err := validateTags(in.Tags); err != nil {
		return inField("tags", err)
	}
	return inField("links", validateLinks(in.Links))
}

// Validate checks every given field, and gives null its meaning: it clears
// body, tags and links (as [] would: the same intent, the same fingerprint)
// and is refused for title and priority.
func (in *UpdateTicketInput) Validate() error {
	if in.Status != nil || slices.Contains(in.nulls, "status") {
		status := "<status>"
		if in.Status != nil {
			status = *in.Status
		}
		// One text for every surface, so it names the way on each.
		return invalid("update_ticket does not change status; call move_ticket with id %q and status %q instead (over REST: POST /api/v1/tickets/%s/move with {\"status\": %q})",
			clip(in.ID), clip(status), clip(in.ID), clip(status))
	}
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return err
	}
	for _, name := range in.nulls {
		switch name {
		case "title":
			return invalid("title cannot be null: a ticket always has a title. Leave title out to keep it, or give a new one")
		case "priority":
			return invalid("priority cannot be null: a ticket always has one. Leave priority out to keep it, or give low, normal, high or urgent")
		case "body":
			empty := ""
			in.Body = &empty
		case "tags":
			in.Tags = &[]string{}
		case "links":
			in.Links = &[]Link{}
		}
	}
	if in.Title == nil && in.Body == nil && in.Priority == nil && !in.Owner.Set && !in.Due.Set && in.Tags == nil && in.Links == nil {
		return invalid("nothing to update: give at least one of title, body, priority, owner, due, tags, links")
	}
	if in.Title != nil {
		if err := validateTitle(*in.Title); err != nil {
			return inField("title", err)
		}
	}
	if in.Body != nil {
		if err := validateText("body", *in.Body, 0, MaxBody); err != nil {
			return inField("body", err)
		}
	}
	if in.Priority != nil {
		if err := validatePriority(*in.Priority); err != nil {
			return inField("priority", err)
		}
	}
	if in.Owner.Value != nil {
		if err := ValidateAuthor("owner", *in.Owner.Value); err != nil {
			return inField("owner", err)
		}
	}
	if in.Due.Value != nil {
		if err := validateDue(*in.Due.Value); err != nil {
			return inField("due", err)
		}
	}
	if in.Tags != nil {
		if err := validateTags(*in.Tags); err != nil {
			return inField("tags", err)
		}
	}
	if in.Links != nil {
		return inField("links", validateLinks(*in.Links))
	}
	return nil
}

// Validate checks the move.
func (in *MoveTicketInput) Validate() error {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return err
	}
	if in.Status == "" {
		return invalid("status is required: one of candidate, doing, waiting_human, waiting_ai, done, hold")
	}
	if err := ValidateStatus(in.Status); err != nil {
		return inField("status", err)
	}
	return inField("reason", validateText("reason", in.Reason, 0, MaxReason))
}

// Validate checks the note.
func (in *AddNoteInput) Validate() error {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return err
	}
	return inField("body", validateText("body", in.Body, 1, MaxNoteBody))
}

// Validate checks filters and fills the default limit.
func (in *ListTicketsInput) Validate() error {
	if err := ValidateSlug(in.Workspace); err != nil {
		return err
	}
	if in.Status != "" {
		if err := ValidateStatus(in.Status); err != nil {
			return err
		}
	}
	if in.Owner != "" {
		if err := ValidateAuthor("owner", in.Owner); err != nil {
			return err
		}
	}
	if in.Tag != "" && !isTag(in.Tag) {
		return invalid("tag %q must be 1-32 of a-z 0-9 . _ -", clip(in.Tag))
	}
	if err := validateText("query", in.Query, 0, MaxQuery); err != nil {
		return err
	}
	if in.Parent != "" {
		slug, _, err := ParseTicketID(in.Parent)
		if err != nil {
			return inField("parent", err)
		}
		if slug != in.Workspace {
			return inField("parent", invalid("parent '%s' is not in workspace '%s': sub-tickets are in their parent's workspace", in.Parent, in.Workspace))
		}
	}
	if in.Limit == 0 {
		in.Limit = DefaultLimit
	}
	if in.Limit < 1 || in.Limit > MaxLimit {
		return invalid("limit %d is out of range 1-%d", in.Limit, MaxLimit)
	}
	return nil
}
