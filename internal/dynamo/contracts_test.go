package dynamo_test

import (
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/dynamo"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// The store implements every contract the packages around the domain own
// beside board.Store (store.go asserts that one). The assertions live in a
// test file so that the store's own imports stay the domain's: the
// functions built on it alone (the worker, the indexer) do not carry the
// authorization server's code.
var (
	_ board.Store                  = (*dynamo.Store)(nil)
	_ auth.Store                   = (*dynamo.Store)(nil)
	_ oauth.Store                  = (*dynamo.Store)(nil)
	_ boardfile.TransferStore      = (*dynamo.Store)(nil)
	_ boardfile.OAuthTransferStore = (*dynamo.Store)(nil)
	_ boardfile.BatchTarget        = (*dynamo.Store)(nil)
)
