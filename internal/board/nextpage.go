package board

// NextPage is the cursor of the page after this one, nil on the last page:
// what a surface links to (REST's Link rel="next").
func (l TicketList) NextPage() *string { return l.NextCursor }

// NextPage is the cursor of the page after this one, nil on the last page.
func (l ActivityList) NextPage() *string { return l.NextCursor }
