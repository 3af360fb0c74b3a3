package storetest

import (
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/boardfile"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
	"github.com/ticket-ledger/ticket-ledger/internal/webhook"
)

// Store is everything a backend implements, and so what the suite checks:
// the use cases' contract (Store) and the contracts of the packages
// that keep their own records beside it: people, sessions and API tokens
// (auth.Store), the authorization server's records (oauth.Store), and a
// store's part in moving a board (boardfile.TransferStore, boardfile.OAuthTransferStore).
// Each package is handed only its own part; the suite takes them together
// so that one run checks a backend whole.
type Store interface {
	board.Store
	board.InboxStore
	auth.Store
	oauth.Store
	boardfile.TransferStore
	boardfile.OAuthTransferStore
	webhook.Store
}
