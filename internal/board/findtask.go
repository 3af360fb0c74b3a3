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
	// The claim's lease only covers starting the task; once it exists, the
	// task says whether the call is still running (an import can run far
	// longer than the lease).
	if !t.Status.Terminal() && l.Status == ledger.LookupAbandoned {
		l.Status = ledger.LookupRunning
	}
	v := t.View()
	l.Task = &v
	return l
}
