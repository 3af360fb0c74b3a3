package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// TestBrowserBoard drives the board's cards in a real browser, on SQLite and
// on DynamoDB (minidyn): a card dragged to another column is moved exactly
// once and takes an optional reason as a note; the keyboard's Move form
// moves a card too; and the board is photographed in light and dark mode
// and on a phone.
func TestBrowserBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real browser; skipped with -short")
	}
	exe := browserPath(t)
	eachStore(t, func(t *testing.T, backend string) {
		if backend == "moto" {
			t.Skip("the browser scenarios run on SQLite and minidyn; moto adds nothing a browser can see")
		}
		e := newEnv(t, backend, auth.ModeRequired)
		e.addPerson("alice", board.RoleAdmin)
		seedBoard(t, e)
		s := startSession(t, exe, e, backend)
		s.signIn("alice")
		dragAndDrop(t, s)
		keyboardMove(t, s)
		photographBoard(t, s)
	})
}

// seedBoard fills inbox with tickets a board shows in every way: by a
// person and by an agent for a person, overdue and due soon, tagged, long.
func seedBoard(t *testing.T, e *env) {
	t.Helper()
	alice := board.WithPrincipal(t.Context(), board.Principal{Author: "human:alice"})
	agent := board.WithPrincipal(t.Context(), board.Principal{Author: "ai:claude", OnBehalfOf: "human:alice"})
	day := func(offset int) string { return time.Now().UTC().AddDate(0, 0, offset).Format(time.DateOnly) }
	for i, c := range []struct {
		in   func() board.CreateTicketInput
		as   string
		move board.Status
	}{
		{func() board.CreateTicketInput {
			return board.CreateTicketInput{NewTicket: board.NewTicket{Title: "Write the release notes", Priority: "high", Owner: "human:alice", Due: day(2), Tags: []string{"docs"}}}
		}, "alice", ""},
		{func() board.CreateTicketInput {
			return board.CreateTicketInput{
				NewTicket: board.NewTicket{
					Title:    "Check every link in the documentation and the README, including the ones to the deployment guide and the OAuth notes",
					Priority: "urgent",
					Owner:    "ai:claude",
					Due:      day(-2),
					Tags:     []string{"docs", "links"},
				},
			}
		}, "agent", ""},
		{func() board.CreateTicketInput {
			return board.CreateTicketInput{NewTicket: board.NewTicket{Title: "Decide on the retention of request records", Owner: "human:alice", Tags: []string{"ledger"}}}
		}, "alice", board.StatusWaitingHuman},
		{func() board.CreateTicketInput {
			return board.CreateTicketInput{NewTicket: board.NewTicket{Title: "Summarise last week's imports", Priority: "low", Tags: []string{"report"}}}
		}, "agent", board.StatusWaitingAI},
		{func() board.CreateTicketInput {
			return board.CreateTicketInput{NewTicket: board.NewTicket{Title: "Rotate the API tokens of the build machines"}}
		}, "alice", board.StatusHold},
		{func() board.CreateTicketInput {
			return board.CreateTicketInput{NewTicket: board.NewTicket{Title: "Move the board to the new table", Priority: "high", Tags: []string{"dynamodb"}}}
		}, "alice", board.StatusDone},
	} {
		ctx := alice
		if c.as == "agent" {
			ctx = agent
		}
		in := c.in()
		in.RequestID, in.Workspace = fmt.Sprintf("seed-%d", i), "inbox"
		res, err := e.svc.CreateTicket(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if c.move != "" {
			if _, err := e.svc.MoveTicket(ctx, board.MoveTicketInput{RequestID: fmt.Sprintf("seed-move-%d", i), ID: res.Ticket.ID, Status: c.move}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// moves is how many times a ticket was moved, from its history.
func moves(t *testing.T, e *env, id string) (n int, status board.Status, notes []string) {
	t.Helper()
	d, err := e.svc.GetTicket(board.WithPrincipal(t.Context(), auth.Operator), board.TicketIDInput{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range d.History {
		if ev.Type == board.EventTicketMoved {
			n++
		}
	}
	for _, note := range d.Notes {
		notes = append(notes, note.Body)
	}
	return n, d.Ticket.Status, notes
}

// dragAndDrop drags inbox-1 from Candidate to Doing with the mouse: one
// POST, one move, then the reason field, whose answer is one note.
func dragAndDrop(t *testing.T, s *session) {
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	s.run("the board, ready for dragging", chromedp.Navigate(s.e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#board .cards[data-dnd] #card-inbox-1`)))
	point := func(sel string) (float64, float64) {
		xy := eval[[]float64](s, "where "+sel+" is", fmt.Sprintf(
			`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel))
		return xy[0], xy[1]
	}
	x0, y0 := point(`#card-inbox-1 .meta`)
	x1, y1 := point(`section[data-status="doing"] .cards`)
	// The left button held down through the moves (buttons=1), as a
	// dragging hand holds it; without it the page sees a hover.
	held := func(p *input.DispatchMouseEventParams) { p.Button, p.Buttons = input.MouseButtonLeft, 1 }
	sentBefore, doneBefore := s.postsSent.Load(), s.e.postsDone.Load()
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y0),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y0, held, chromedp.ClickCount(1)),
	}
	for i := 1; i <= 12; i++ { // a path of small moves, as a hand drags
		f := float64(i) / 12
		steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, held))
	}
	// SortableJS checks where a dragged card is over on a timer: the hand
	// stays over Doing until the card shows there, then lets go.
	steps = append(steps, chromedp.WaitVisible(css(`section[data-status="doing"] #card-inbox-1`)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y1, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.WaitVisible(css(`section[data-status="doing"] #card-inbox-1 form.reason input[name="reason"]`)))
	s.run("drag inbox-1 to Doing", steps...)
	if n := s.settle("the drop", sentBefore, doneBefore); n != 1 {
		t.Fatalf("a drop sent %d POSTs, want 1", n)
	}
	if n, status, _ := moves(t, s.e, "inbox-1"); n != 1 || status != board.StatusDoing {
		t.Fatalf("after the drop: %d moves, status %s; want 1 move to doing", n, status)
	}
	if got := eval[string](s, "the Doing count", `document.querySelector('#col-doing .n').textContent`); got != "1" {
		t.Errorf("Doing's count after the drop: %q, want 1", got)
	}

	s.shot("board-drop-reason.png")

	// The reason afterwards: typed, sent with Enter, kept as one note.
	sentBefore, doneBefore = s.postsSent.Load(), s.e.postsDone.Load()
	s.run("give a reason",
		chromedp.SendKeys(css(`#card-inbox-1 form.reason input[name="reason"]`), "drafting now"+kb.Enter),
		chromedp.WaitNotPresent(css(`#card-inbox-1 form.reason`)))
	if n := s.settle("the reason", sentBefore, doneBefore); n != 1 {
		t.Fatalf("the reason sent %d POSTs, want 1", n)
	}
	n, _, notes := moves(t, s.e, "inbox-1")
	if n != 1 || len(notes) != 1 || notes[0] != "Moved to Doing: drafting now" {
		t.Fatalf("after the reason: %d moves, notes %q", n, notes)
	}
	if got := eval[string](s, "the announcement", `document.getElementById('dnd-status').textContent`); !strings.Contains(got, "Reason saved") {
		t.Errorf("the status region says %q after the reason", got)
	}
}

// keyboardMove moves inbox-3 with the keyboard alone: open its Move form
// with Enter, Tab to its fields (the first other status is Candidate),
// submit with Enter.
func keyboardMove(t *testing.T, s *session) {
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	s.run("move with the keyboard",
		chromedp.Navigate(s.e.url+"/w/inbox"),
		chromedp.WaitVisible(css(`#card-inbox-3`)),
		chromedp.Focus(css(`#card-inbox-3 details.move summary`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(css(`#card-inbox-3 select[name="status"]`)),
		chromedp.KeyEvent(kb.Tab), // to the status
		chromedp.KeyEvent(kb.Tab), // to the reason
		chromedp.SendKeys(css(`#card-inbox-3 input[name="reason"]`), "answered"+kb.Enter),
		chromedp.WaitVisible(css(`section[data-status="candidate"] #card-inbox-3`)),
	)
	if n, status, _ := moves(t, s.e, "inbox-3"); n != 2 || status != board.StatusCandidate {
		t.Fatalf("after the keyboard's move: %d moves, status %s; want 2, candidate", n, status)
	}
	focused := eval[string](s, "focus style", `(() => { const a = document.querySelector('#card-inbox-3 .card-title'); a.focus(); return getComputedStyle(a).outlineStyle; })()`)
	if focused == "none" {
		t.Error("a focused card link shows no outline")
	}
}

// photographBoard takes the board in light and dark mode, a ticket in dark
// mode, and the board on a phone (390 × 844) in both, and checks what the
// pictures should show: the dark scheme applied, filters shown on a laptop
// and folded on a phone, a phone board that snaps column by column, and no
// page wider than its screen.
func photographBoard(t *testing.T, s *session) {
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	layout := func(what string) map[string]string {
		return eval[map[string]string](s, what, `(() => ({
			width: String(document.documentElement.scrollWidth),
			background: getComputedStyle(document.body).backgroundColor,
			filters: String(document.querySelector('form.filters') ? document.querySelector('form.filters').checkVisibility() : 'none'),
			snap: document.getElementById('board') ? getComputedStyle(document.getElementById('board')).scrollSnapType : '',
			tables: String([...document.querySelectorAll('.table-wrap')].every(w => getComputedStyle(w).overflowX === 'auto')),
		}))()`)
	}
	want := func(what string, got map[string]string, key, value string) {
		t.Helper()
		if got[key] != value {
			t.Errorf("%s: %s is %q, want %q", what, key, got[key], value)
		}
	}
	s.run("the board", chromedp.Navigate(s.e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)))
	s.shot("board-cards.png")
	l := layout("the board")
	want("the board", l, "width", "1280")
	want("the board", l, "background", "rgb(246, 247, 249)")
	want("the board", l, "filters", "true")
	s.colorScheme("dark")
	s.run("the board in the dark", chromedp.Navigate(s.e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)))
	s.shot("board-dark.png")
	want("the dark board", layout("the dark board"), "background", "rgb(20, 23, 29)")
	s.run("a ticket in the dark", chromedp.Navigate(s.e.url+"/tickets/inbox-1"), chromedp.WaitVisible(css(`#notes-h`)))
	s.shot("ticket-dark.png")
	s.run("phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)))
	s.shot("board-phone-dark.png")
	s.colorScheme("light")
	s.run("phone, light", chromedp.Navigate(s.e.url+"/w/inbox"), chromedp.WaitVisible(css(`#board`)))
	s.shot("board-phone-cards.png")
	l = layout("the phone board")
	want("the phone board", l, "width", "390")
	want("the phone board", l, "filters", "false")
	want("the phone board", l, "snap", "x mandatory")
	s.run("ticket on a phone", chromedp.Navigate(s.e.url+"/tickets/inbox-1"), chromedp.WaitVisible(css(`#history-h`)))
	s.shot("ticket-phone.png")
	l = layout("the phone ticket")
	want("the phone ticket", l, "width", "390")
	want("the phone ticket", l, "tables", "true")
	s.run("laptop", chromedp.EmulateViewport(1280, 900))
}
