package web

import (
	"net/http"
	"strings"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Webhooks: a workspace's subscriptions under its settings, for admins:
// subscribe a URL (its signing secret shown once), see each one's state
// (paused, and why) and its newest deliveries, pause, resume, send a test
// event, delete.

// webhookLogRows is how many attempts the page shows per subscription.
const webhookLogRows = 10

type webhooksData struct {
	Workspace board.Workspace
	Hooks     []webhookView
	// New is the subscription just made with its secret, shown on this
	// answer only.
	New      *webhook.Created
	Kinds    []string
	Statuses []board.Status
	Form     *formState
}

type webhookView struct {
	webhook.Subscription
	Deliveries []webhook.Attempt
}

func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request) {
	s.showWebhooks(w, r, http.StatusOK, "", nil, nil)
}

func (s *Server) showWebhooks(w http.ResponseWriter, r *http.Request, status int, errMsg string, made *webhook.Created, form *formState) {
	ctx := r.Context()
	ws, err := s.cfg.Service.GetWorkspaceSummary(ctx, board.WorkspaceInput{Workspace: r.PathValue("slug")})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	subs, err := s.cfg.Webhooks.List(ctx, ws.Workspace.Slug)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := webhooksData{Workspace: ws.Workspace, New: made, Kinds: webhook.Kinds, Statuses: board.Statuses, Form: form}
	for _, sub := range subs {
		detail, err := s.cfg.Webhooks.Get(ctx, ws.Workspace.Slug, sub.ID)
		if err != nil {
			s.errorPage(w, r, err)
			return
		}
		d.Hooks = append(d.Hooks, webhookView{Subscription: detail.Subscription, Deliveries: detail.Deliveries[:min(len(detail.Deliveries), webhookLogRows)]})
	}
	s.render(w, r, status, "webhooks", page{Title: ws.Workspace.Name + " webhooks", Error: errMsg, Data: d})
}

// createWebhook subscribes the URL and shows the secret once.
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	in := webhook.CreateInput{RequestID: r.PostFormValue("request_id"), Workspace: r.PathValue("slug"), URL: strings.TrimSpace(r.PostFormValue("url")),
		Inbox: strings.TrimPrefix(strings.TrimSpace(r.PostFormValue("inbox")), "@"), Format: webhook.Format(r.PostFormValue("format"))}
	for _, kind := range r.PostForm["events"] {
		f := webhook.EventFilter{Kind: kind}
		if kind == board.EventTicketMoved {
			f.To = board.Status(r.PostFormValue("moved_to"))
		}
		in.Events = append(in.Events, f)
	}
	made, err := s.cfg.Webhooks.Create(r.Context(), in)
	if err != nil {
		f, top := refusedForm("webhook", r, err, "url", "inbox")
		s.showWebhooks(w, r, formStatus(err), top, nil, f)
		return
	}
	s.showWebhooks(w, r, http.StatusCreated, "", &made, nil)
}

// webhookAction pauses, resumes, tests or deletes a subscription, then
// shows the page again.
func (s *Server) webhookAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, slug, id := r.Context(), r.PathValue("slug"), r.PathValue("id")
		var err error
		flash := "webhook-" + action
		switch action {
		case "paused", "resumed":
			_, err = s.cfg.Webhooks.SetPaused(ctx, slug, id, action == "paused")
		case "tested":
			var a webhook.Attempt
			if a, err = s.cfg.Webhooks.SendTest(ctx, slug, id); err == nil && !a.OK {
				flash = "webhook-test-failed"
			}
		case "deleted":
			if !s.confirmed(w, r, confirmData{Question: "Delete webhook " + id + "?",
				Effect: "Nothing more is sent to its URL, and its delivery log goes with it. Subscribing the URL again makes a new secret.",
				Action: "/w/" + slug + "/webhooks/" + id + "/delete", Button: "Delete the webhook", Cancel: "/w/" + slug + "/webhooks"}) {
				return
			}
			err = s.cfg.Webhooks.Delete(ctx, slug, id)
		}
		if err != nil {
			s.showWebhooks(w, r, statusOf(err), message(err), nil, nil)
			return
		}
		seeOther(w, r, withFlash("/w/"+slug+"/webhooks", flash))
	}
}
