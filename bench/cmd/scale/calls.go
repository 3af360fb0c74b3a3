package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// call is one measured tool call, made through board.Service as every
// surface makes it. It returns how many items (tickets, notes, events) the
// answer holds, and errWrong wrapped when the answer is wrong (that is
// reported, not fatal: it is what a benchmark of a defect shows).
type call struct {
	name string
	read bool // reads carry the targets; writes are shown for comparison
	fn   func(ctx context.Context, svc *board.Service, n int) (int, error)
}

var errWrong = errors.New("wrong answer")

var created atomic.Int64

func listCall(name string, in board.ListTicketsInput) call {
	return call{name: name, read: true, fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
		in.Workspace = workspace
		out, err := svc.ListTickets(ctx, in)
		return len(out.Tickets), err
	}}
}

// searchCall is list_tickets with a word query. A word query never answers
// partial; want, when not nil, is every ticket it must find (newest first).
func searchCall(name, query string, want []int64) call {
	return call{name: name, read: true, fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
		out, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: workspace, Query: query})
		if err != nil {
			return 0, err
		}
		if out.Partial {
			return len(out.Tickets), fmt.Errorf("%w: a word query answered partial", errWrong)
		}
		if want != nil {
			var got []string
			for _, t := range out.Tickets {
				got = append(got, t.ID)
			}
			var w []string
			for i := len(want) - 1; i >= 0; i-- {
				w = append(w, fmt.Sprintf("%s-%d", workspace, want[i]))
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				return len(out.Tickets), fmt.Errorf("%w: found %v, want %v", errWrong, got, w)
			}
		}
		return len(out.Tickets), nil
	}}
}

// only, when set (-only), keeps the calls whose names it matches: on moto
// at 100k, growing the board with its word items and every index walk of
// the other rows take hours, while the search rows read only what matches.
var only *regexp.Regexp

func calls() []call {
	var kept []call
	for _, c := range allCalls() {
		if only == nil || only.MatchString(c.name) {
			kept = append(kept, c)
		}
	}
	return kept
}

func allCalls() []call {
	return []call{
		{name: "list_workspaces", read: true, fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
			out, err := svc.ListWorkspaces(ctx)
			return len(out.Workspaces), err
		}},
		{name: "get_workspace_summary", read: true, fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
			out, err := svc.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: workspace})
			if err == nil && len(out.DueSoon) < len(openDueSoon) {
				err = fmt.Errorf("%w: due_soon lists %d tickets, want at least the %d open ones due tomorrow", errWrong, len(out.DueSoon), len(openDueSoon))
			}
			return len(out.WaitingAI) + len(out.DueSoon) + len(out.RecentEvents), err
		}},
		listCall("list_tickets first page", board.ListTicketsInput{}),
		listCall("list_tickets limit=100", board.ListTicketsInput{Limit: 100}),
		listCall("list_tickets status=waiting_ai", board.ListTicketsInput{Status: board.StatusWaitingAI}),
		listCall("list_tickets owner=ai:rare", board.ListTicketsInput{Owner: "ai:rare"}),
		listCall("list_tickets tag=rare", board.ListTicketsInput{Tag: "rare"}),
		listCall("list_tickets tag=common", board.ListTicketsInput{Tag: "common"}),
		searchCall("search one word: needle", "needle ", needles),
		searchCall("search prefix: needl", "needl", needles),
		searchCall("search common word: docs", "docs ", nil),
		searchCall("search two words: tidy docs", "tidy docs ", nil),
		searchCall("search two words, no hit", "zebra crossing ", []int64{}),
		searchCall("search Japanese, two characters: 点滅", "点滅", needles),
		searchCall("search Japanese, a common pair: 記事", "記事", nil),
		searchCall("search Japanese, three characters: 下書き", "下書き", nil),
		{name: "get_ticket (200 notes)", read: true, fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
			out, err := svc.GetTicket(ctx, board.TicketIDInput{ID: fmt.Sprintf("%s-%d", workspace, busyTicket)})
			return 1 + len(out.Notes) + len(out.History), err
		}},
		{name: "get_ticket", read: true, fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
			out, err := svc.GetTicket(ctx, board.TicketIDInput{ID: workspace + "-5"})
			return 1 + len(out.Notes) + len(out.History), err
		}},
		{name: "create_ticket", fn: func(ctx context.Context, svc *board.Service, _ int) (int, error) {
			n := created.Add(1) // unique across sizes: never a replay
			_, err := svc.CreateTicket(ctx, board.CreateTicketInput{
				RequestID: fmt.Sprintf("bench-scale-%s-%d", runID, n),
				Workspace: workspace,
				NewTicket: board.NewTicket{Title: fmt.Sprintf("measured create %d", n)},
			})
			return 1, err
		}},
	}
}
