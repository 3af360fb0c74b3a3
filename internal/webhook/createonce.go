package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// Creating a subscription happens exactly once per request_id (REST: the
// Idempotency-Key; the board's form carries one), like every write: the
// store commits the subscription with its request record, and a retry with
// the same key and body answers the first answer, the same subscription
// and the same signing secret, without minting another.
//
// The record keeps that answer with the secret sealed (as the subscription
// keeps it), never in the clear: a replay opens it again. So for the
// record's retention a lost answer can be fetched again, but only by the
// same caller with the same key and the same body; after that the secret
// is never shown again. Records of this tool are not moved by a board
// transfer (board.TransferredTool does not name it).

// ToolCreateWebhook names webhook creation in the request ledger; it
// shares the caller's request_id namespace with the MCP tools.
const ToolCreateWebhook = "create_webhook"

// createArgs are a creation's arguments as the ledger compares them.
type createArgs struct {
	Workspace string        `json:"workspace"`
	URL       string        `json:"url"`
	Events    []EventFilter `json:"events,omitempty"`
	Inbox     string        `json:"inbox,omitempty"`
	Format    Format        `json:"format,omitempty"`
}

// createdRecord is the stored answer: the subscription and its sealed
// secret.
type createdRecord struct {
	Subscription Subscription `json:"subscription"`
	SealedSecret []byte       `json:"sealed_secret"`
}

// createRecord builds the record a creation commits (without its result)
// after checking the request_id.
func (s *Service) createRecord(ctx context.Context, in CreateInput) (ledger.Record, error) {
	if err := ledger.ValidateRequestID(in.RequestID); err != nil {
		return ledger.Record{}, board.Errorf(board.CodeInvalid, "%s (REST: the Idempotency-Key header)", err.Error())
	}
	canonical, err := ledger.CanonicalArgs(createArgs{Workspace: in.Workspace, URL: in.URL, Events: in.Events, Inbox: in.Inbox, Format: in.Format})
	if err != nil {
		return ledger.Record{}, board.Errorf(board.CodeInvalid, "arguments cannot be encoded: %v", err)
	}
	key := board.RequestKey(board.PrincipalFrom(ctx), in.RequestID)
	return ledger.NewRecord(key, ToolCreateWebhook, canonical, s.cfg.Now().UTC(), s.cfg.Retention), nil
}

// earlierAnswer looks for a record under rec's key: found is false when
// the key is free.
func (s *Service) earlierAnswer(ctx context.Context, rec ledger.Record) (out Created, found bool, err error) {
	existing, err := s.cfg.Store.GetRequest(ctx, rec.Key, rec.CreatedAt)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return Created{}, false, nil
	case err != nil:
		return Created{}, false, s.internal(err)
	}
	out, err = s.answerExisting(ctx, existing, rec)
	return out, true, err
}

// answerExisting answers a creation whose key holds existing: its answer
// again, or why this call cannot run.
func (s *Service) answerExisting(ctx context.Context, existing, rec ledger.Record) (Created, error) {
	switch ledger.Judge(existing, rec.Tool, rec.Fingerprint, rec.CreatedAt) {
	case ledger.Replay:
	case ledger.Mismatch:
		return Created{}, board.Errorf(board.CodeRequestReused, "%s", ledger.MismatchMessage(existing, rec.Tool, rec.Args))
	default: // a creation never leaves a running record
		return Created{}, board.Errorf(board.CodeInProgress, "request_id %q is still in progress; retry later with the same request_id", existing.Key.RequestID)
	}
	var stored createdRecord
	if err := json.Unmarshal(existing.Result, &stored); err != nil {
		return Created{}, s.internal(fmt.Errorf("webhook creation record %q: %w", existing.Key.RequestID, err))
	}
	seal, err := s.sealer(ctx)
	if err != nil {
		return Created{}, s.internal(err)
	}
	secret, err := seal.open(stored.Subscription.ID, stored.SealedSecret)
	if err != nil {
		return Created{}, s.internal(err)
	}
	return Created{Subscription: stored.Subscription, Secret: secret, replayed: true}, nil
}

// recordResult is the result a creation's record keeps.
func recordResult(sub Subscription) ([]byte, error) {
	return json.Marshal(createdRecord{Subscription: sub, SealedSecret: sub.SealedSecret})
}
