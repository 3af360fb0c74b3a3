package board

import "slices"

// changeFields are the fields whose values a ticket.updated event keeps.
var changeFields = []string{"title", "priority", "owner", "due", "tags"}

// validateMovedChanges holds a moved event's title and changes to what the
// service itself writes: a title no longer than a ticket's, and values only
// for the short fields the event names, each of the field's own kind. A
// board file can then not make history answers larger than the service's.
func validateMovedChanges(e Event) error {
	if err := validateText("title", e.Title, 0, MaxTitle); err != nil {
		return invalid("event %s: %s", e.ID, err.Error())
	}
	if e.Title != "" && e.TicketID == "" {
		return invalid("event %s: only an event about a ticket has a title", e.ID)
	}
	if e.Type == EventNoteEdited {
		return validateNoteEditChanges(e)
	}
	if len(e.Changes) > 0 && e.Type != EventTicketUpdated {
		return invalid("event %s: only a %s or %s event has changes", e.ID, EventTicketUpdated, EventNoteEdited)
	}
	for i, c := range e.Changes {
		if !slices.Contains(changeFields, c.Field) || !slices.Contains(e.Fields, c.Field) ||
			slices.ContainsFunc(e.Changes[:i], func(o FieldChange) bool { return o.Field == c.Field }) {
			return invalid("event %s: change of %q is not of a short field the event names, or is given twice", e.ID, clip(c.Field))
		}
		for _, v := range []any{c.Before, c.After} {
			if err := validateChangeValue(c.Field, v); err != nil {
				return invalid("event %s: %s", e.ID, err.Error())
			}
		}
	}
	return nil
}

// validateChangeValue checks one value of a change as its field's own.
func validateChangeValue(field string, v any) error {
	if v == nil {
		if field == "owner" || field == "due" {
			return nil
		}
		return invalid("%s: only owner and due may change from or to null", field)
	}
	switch field {
	case "tags":
		list, ok := v.([]any)
		if !ok {
			return invalid("tags: a change's value must be a list of tags")
		}
		tags := make([]string, len(list))
		for i, t := range list {
			if tags[i], ok = t.(string); !ok {
				return invalid("tags: a change's value must be a list of tags")
			}
		}
		return validateTags(tags)
	}
	s, ok := v.(string)
	if !ok {
		return invalid("%s: a change's value must be a string", field)
	}
	switch field {
	case "title":
		return validateText("title", s, 1, MaxTitle)
	case "priority":
		return validatePriority(Priority(s))
	case "due":
		return validateDue(s)
	}
	return ValidateAuthor("owner", s)
}
