// Command huma is the same REST API on huma v2 (its standard-library
// adapter, humago), for the routing benchmark: the same routes, inputs and
// results (the board's Go types), registered at start as huma does; then
// one GET /api/v1/workspaces/inbox/tickets?limit=5&status=doing and the OpenAPI document, timed from the start
// of main. Only the list routes do work; the others are registered so the
// start-up cost is that of the whole API.
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/ticket-ledger/ticket-ledger/bench/restrouting/stub"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
)

// Exported, so huma reads the embedded parameters.
type (
	Key struct {
		Key string `header:"Idempotency-Key" required:"true"`
	}
	Slug struct {
		Slug string `path:"slug"`
	}
	TicketID struct {
		ID string `path:"id"`
	}
	body[T any] struct{ Body T }
)

func main() {
	start := time.Now()
	svc := stub.Service()
	mux := http.NewServeMux()
	api := humago.NewWithPrefix(mux, "/api/v1", huma.DefaultConfig("ticket-ledger REST API", "1.0.0"))
	huma.Register(api, huma.Operation{OperationID: "listWorkspaces", Method: "GET", Path: "/workspaces"},
		func(ctx context.Context, _ *struct{}) (*body[board.WorkspacesResult], error) {
			out, err := svc.ListWorkspaces(ctx)
			return &body[board.WorkspacesResult]{out}, err
		})
	huma.Register(api, huma.Operation{OperationID: "createWorkspace", Method: "POST", Path: "/workspaces", DefaultStatus: 201},
		func(ctx context.Context, in *struct {
			Key
			Body board.CreateWorkspaceInput
		}) (*body[board.WorkspaceResult], error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "getWorkspaceSummary", Method: "GET", Path: "/workspaces/{slug}"},
		func(ctx context.Context, in *Slug) (*body[board.WorkspaceSummary], error) { return nil, nil })
	huma.Register(api, huma.Operation{OperationID: "updateWorkspace", Method: "PATCH", Path: "/workspaces/{slug}"},
		func(ctx context.Context, in *struct {
			Slug
			Key
			Body board.UpdateWorkspaceInput
		}) (*body[board.WorkspaceResult], error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "listTickets", Method: "GET", Path: "/workspaces/{slug}/tickets"},
		func(ctx context.Context, in *struct {
			Slug
			Status string `query:"status" enum:"candidate,doing,waiting_human,waiting_ai,done,hold"`
			Owner  string `query:"owner"`
			Tag    string `query:"tag"`
			Query  string `query:"query"`
			Limit  int    `query:"limit" minimum:"1" maximum:"100"`
			Cursor string `query:"cursor"`
		}) (*body[board.TicketList], error) {
			out, err := svc.ListTickets(ctx, board.ListTicketsInput{Workspace: in.Slug.Slug, Status: board.Status(in.Status), Owner: in.Owner,
				Tag: in.Tag, Query: in.Query, Limit: in.Limit, Cursor: in.Cursor})
			return &body[board.TicketList]{out}, err
		})
	huma.Register(api, huma.Operation{OperationID: "createTicket", Method: "POST", Path: "/workspaces/{slug}/tickets", DefaultStatus: 201},
		func(ctx context.Context, in *struct {
			Slug
			Key
			Body board.CreateTicketInput
		}) (*body[board.TicketResult], error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "getTicket", Method: "GET", Path: "/tickets/{id}"},
		func(ctx context.Context, in *TicketID) (*body[board.TicketDetail], error) { return nil, nil })
	huma.Register(api, huma.Operation{OperationID: "updateTicket", Method: "PATCH", Path: "/tickets/{id}"},
		func(ctx context.Context, in *struct {
			TicketID
			Key
			IfMatch string `header:"If-Match"`
			Body    board.UpdateTicketInput
		}) (*body[board.TicketResult], error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "moveTicket", Method: "POST", Path: "/tickets/{id}/move"},
		func(ctx context.Context, in *struct {
			TicketID
			Key
			Body board.MoveTicketInput
		}) (*body[board.MoveResult], error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "addNote", Method: "POST", Path: "/tickets/{id}/notes", DefaultStatus: 201},
		func(ctx context.Context, in *struct {
			TicketID
			Key
			Body board.AddNoteInput
		}) (*body[board.NoteResult], error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "findRequest", Method: "GET", Path: "/requests/{key}"},
		func(ctx context.Context, in *struct {
			Key string `path:"key"`
		}) (*body[board.RequestLookup], error) {
			return nil, nil
		})
	built := time.Since(start)
	first := serve(mux, "/api/v1/workspaces/inbox/tickets?limit=5&status=doing", start)
	var doc time.Duration
	if len(os.Args) < 2 || os.Args[1] != "first" { // "first": stop after the first answer
		doc = serve(mux, "/api/v1/openapi.json", start)
	}
	fmt.Printf("%d %d %d\n", built, first, doc)
}

func serve(h http.Handler, path string, start time.Time) time.Duration {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != 200 {
		panic(fmt.Sprintf("%s: %d %.300s", path, rec.Code, rec.Body))
	}
	return time.Since(start)
}
