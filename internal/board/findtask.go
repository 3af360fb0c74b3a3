package board

import (
	"context"
	"encoding/json"

	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
)

// withTask adds to find_request's answer the task a call started, read from
// the store (so any instance answers with its current status and
// progress). The request record names the task in its result, the
// placeholder while running and the final result once ended.
func (s *Service) withTask(ctx context.Context, l RequestLookup, rec ledger.Record) RequestLookup {
	if rec.Tool != ToolImportTickets || len(rec.Result) == 0 || l.Status == ledger.LookupUnknown {
		return l
	}
	var named ImportResult
	if json.Unmarshal(rec.Result, &named) != nil || named.TaskID == "" {
		return l
	}
	t, err := s.store.GetTask(ctx, named.TaskID, s.now())
	if err != nil || t.Request != rec.Key {
		return l // expired or unreadable: the record's own answer stands
	}
	if t.Status.Terminal() && rec.Status == ledger.StatusRunning {
		s.settleRequest(ctx, t)
	}
	v := t.View()
	l.Task = &v
	return l
}
