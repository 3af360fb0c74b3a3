package board

// TicketActivityInput pages a ticket's notes or history.
type TicketActivityInput struct {
	ID     string `json:"id" jsonschema:"ticket id, e.g. inbox-21"`
	Cursor string `json:"cursor,omitempty" jsonschema:"notes_cursor or history_cursor from get_ticket, or next_cursor of the previous page; omit to start from the newest"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size 1-100, default 20"`
}

// Validate checks the input and fills the default page size.
func (in *TicketActivityInput) Validate() error {
	if _, _, err := ParseTicketID(in.ID); err != nil {
		return err
	}
	if in.Limit == 0 {
		in.Limit = DefaultLimit
	}
	if in.Limit < 1 || in.Limit > MaxLimit {
		return invalid("limit %d is out of range 1-%d", in.Limit, MaxLimit)
	}
	return nil
}
