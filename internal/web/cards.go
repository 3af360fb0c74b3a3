package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// What a board card shows beyond a ticket's stored fields: who created it,
// read from its author, and how its due date stands against today.

// cardFuncs are the template functions of the board's cards.
var cardFuncs = template.FuncMap{
	"agentName":  agentName,
	"dueState":   func(due *string) dueInfo { return dueStateAt(due, time.Now()) },
	"trimPrefix": strings.TrimPrefix,
}

// agentName is the agent's name of an "ai:<name>" author, or "" for
// anyone else: a card badges what an agent created, so a person sees at a
// glance which tickets came from AI.
func agentName(author string) string {
	name, ok := strings.CutPrefix(author, "ai:")
	if !ok {
		return ""
	}
	return name
}

// dueInfo is a due date as a card shows it: relative to today, because
// "due in 2 days" is what a person acts on, with the date kept as the title.
type dueInfo struct {
	Date    string
	Text    string
	Overdue bool
	Today   bool
}

// dueStateAt reads due (YYYY-MM-DD) against the day of now in UTC, the zone
// the board shows every time in. A date it cannot read is shown as it is.
func dueStateAt(due *string, now time.Time) dueInfo {
	if due == nil || *due == "" {
		return dueInfo{}
	}
	d := dueInfo{Date: *due, Text: "due " + *due}
	day, err := time.Parse(time.DateOnly, *due)
	if err != nil {
		return d
	}
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	days := int(day.Sub(today).Hours() / 24)
	switch {
	case days < -1:
		d.Text, d.Overdue = fmt.Sprintf("overdue by %d days", -days), true
	case days == -1:
		d.Text, d.Overdue = "overdue since yesterday", true
	case days == 0:
		d.Text, d.Today = "due today", true
	case days == 1:
		d.Text = "due tomorrow"
	case days < 14:
		d.Text = fmt.Sprintf("due in %d days", days)
	}
	return d
}
