package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// The board every size grows: one workspace (inbox) whose ticket n is
// spec(n). What the filters look for is rare and old on purpose (all of it
// among the first 1000 tickets), so a read that walks the workspace newest
// first instead of using an index has to go through the whole board to
// answer, and its cost shows at 100k.
const (
	workspace = "inbox"
	// busyTicket has busyNotes notes: get_ticket and the note pages read it.
	busyTicket = 2
	busyNotes  = 200
)

var (
	rareTagged  = []int64{100, 300, 500, 700, 900}
	rareOwned   = []int64{150, 450, 850}
	needles     = []int64{250, 550, 750} // "needle" and 点滅 in the body
	openDueSoon = []int64{200, 400, 600} // open, due tomorrow
)

// ticketSpec is what ticket n is made of.
type ticketSpec struct {
	title, body string
	tags        []string
	owner       string
	due         string
	status      board.Status
}

func contains(ns []int64, n int64) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}

// spec describes ticket n: a quarter carry tag "common", every tenth is
// owned by ai:bench, every 20th is done with a due date this week (the
// done tickets the summary's due_soon must skip), every 50th waits for AI.
func spec(n int64, today time.Time) ticketSpec {
	s := ticketSpec{
		title:  fmt.Sprintf("Ticket %d: tidy the %s", n, words[n%int64(len(words))]),
		body:   fmt.Sprintf("Body of ticket %d. %s", n, strings.Repeat(lorem, 2)),
		status: board.StatusCandidate,
	}
	if n%4 == 0 {
		s.tags = append(s.tags, "common")
	}
	s.tags = append(s.tags, fmt.Sprintf("area-%d", n%50))
	if contains(rareTagged, n) {
		s.tags = append(s.tags, "rare")
	}
	switch {
	case contains(rareOwned, n):
		s.owner = "ai:rare"
	case n%10 == 0:
		s.owner = "ai:bench"
	}
	if contains(needles, n) {
		s.body += " The needle is here. LEDの点滅を直す。"
	}
	if n%8 == 3 {
		s.body += " ブログ記事の下書きを確認する。"
	}
	switch {
	case contains(openDueSoon, n):
		s.due = today.AddDate(0, 0, 1).Format(time.DateOnly)
	case n%20 == 1:
		s.status = board.StatusDone
		s.due = today.AddDate(0, 0, int(n%7)).Format(time.DateOnly)
	case n%50 == 7:
		s.status = board.StatusWaitingAI
	case n%30 == 3:
		s.due = "2030-01-01"
	}
	return s
}

var words = []string{"backlog", "release notes", "build", "docs", "search page", "importer", "billing export", "login form"}

const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. "
