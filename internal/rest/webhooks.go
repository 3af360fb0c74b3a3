package rest

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Webhook subscriptions are managed by admins over REST (and on the
// board), not by agents, so they are no operation of internal/operations
// (which are MCP tools too): their routes are served here, behind the same
// authentication and cross-origin protection as every route. webhookdoc.go
// describes them in the OpenAPI document.

// webhookBodyBytes bounds a webhook route's body.
const webhookBodyBytes = 16 << 10

// mountWebhooks adds the webhook routes to the API's mux.
func mountWebhooks(api *http.ServeMux, hooks *webhook.Service) {
	base := Prefix + "/workspaces/{slug}/webhooks"
	api.HandleFunc("POST "+base, func(w http.ResponseWriter, r *http.Request) {
		var in webhook.CreateInput
		if !readWebhookBody(w, r, &in) {
			return
		}
		// The key is read after the body, as on every route: a body that
		// cannot be a call is refused first, whatever its key.
		key, err := idempotencyKey(r)
		if err != nil {
			writeRefusal(w, err)
			return
		}
		in.RequestID, in.Workspace = key, r.PathValue("slug")
		out, err := hooks.Create(r.Context(), in)
		if err == nil && out.WasReplayed() {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		answerWebhook(w, http.StatusCreated, out, err)
	})
	api.HandleFunc("GET "+base, func(w http.ResponseWriter, r *http.Request) {
		subs, err := hooks.List(r.Context(), r.PathValue("slug"))
		answerWebhook(w, http.StatusOK, map[string]any{"webhooks": subs}, err)
	})
	api.HandleFunc("GET "+base+"/{id}", func(w http.ResponseWriter, r *http.Request) {
		out, err := hooks.Get(r.Context(), r.PathValue("slug"), r.PathValue("id"))
		answerWebhook(w, http.StatusOK, out, err)
	})
	api.HandleFunc("DELETE "+base+"/{id}", func(w http.ResponseWriter, r *http.Request) {
		err := hooks.Delete(r.Context(), r.PathValue("slug"), r.PathValue("id"))
		answerWebhook(w, http.StatusNoContent, nil, err)
	})
	for action, paused := range map[string]bool{"pause": true, "resume": false} {
		api.HandleFunc("POST "+base+"/{id}/"+action, func(w http.ResponseWriter, r *http.Request) {
			out, err := hooks.SetPaused(r.Context(), r.PathValue("slug"), r.PathValue("id"), paused)
			answerWebhook(w, http.StatusOK, out, err)
		})
	}
	api.HandleFunc("POST "+base+"/{id}/test", func(w http.ResponseWriter, r *http.Request) {
		out, err := hooks.SendTest(r.Context(), r.PathValue("slug"), r.PathValue("id"))
		answerWebhook(w, http.StatusOK, out, err)
	})
	api.HandleFunc("POST "+base+"/{id}/redeliver", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			EventID string `json:"event_id"`
		}
		if !readWebhookBody(w, r, &in) {
			return
		}
		out, err := hooks.Redeliver(r.Context(), r.PathValue("slug"), r.PathValue("id"), in.EventID)
		answerWebhook(w, http.StatusOK, out, err)
	})
}

// readWebhookBody decodes a JSON body with no unknown fields, or answers
// the problem and says false.
func readWebhookBody(w http.ResponseWriter, r *http.Request, into any) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		problemf(w, http.StatusUnsupportedMediaType, board.CodeInvalid, "send the body as JSON with Content-Type: application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, webhookBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			problemf(w, http.StatusRequestEntityTooLarge, board.CodeInvalid, "the body is larger than 16 KiB; send less")
			return false
		}
		problemf(w, http.StatusBadRequest, board.CodeInvalid, "the body is not the JSON this route takes ("+err.Error()+"); see docs/webhooks.md")
		return false
	}
	if dec.Decode(new(json.RawMessage)) != io.EOF {
		problemf(w, http.StatusBadRequest, board.CodeInvalid, "the body holds more than one JSON value; send one object")
		return false
	}
	return true
}

func answerWebhook(w http.ResponseWriter, status int, out any, err error) {
	if err != nil {
		writeProblem(w, err)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store") // a creation's answer carries the secret
	if out == nil {
		w.WriteHeader(status)
		return
	}
	body, err := json.Marshal(out)
	if err != nil {
		writeProblem(w, err)
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
