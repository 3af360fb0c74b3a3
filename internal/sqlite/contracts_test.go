package sqlite_test

import (
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/sqlite"
)

// The store implements every contract the packages around the domain own
// beside board.Store (store.go asserts that one). As for the DynamoDB
// store, the assertions live in a test file so that a store's own imports
// stay the domain's.
var (
	_ board.Store                  = (*sqlite.Store)(nil)
	_ auth.Store                   = (*sqlite.Store)(nil)
	_ oauth.Store                  = (*sqlite.Store)(nil)
	_ boardfile.TransferStore      = (*sqlite.Store)(nil)
	_ boardfile.OAuthTransferStore = (*sqlite.Store)(nil)
	_ boardfile.BatchTarget        = (*sqlite.Store)(nil)
)
