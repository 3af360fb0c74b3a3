//go:build !noboard

package main

import "github.com/ticket-ledger/ticket-ledger/internal/web"

// mountBoard serves the web board (its pages, sign-in, static assets and
// the OAuth approval page) at every path the other surfaces leave.
func mountBoard(mux *routeMux, d boardDeps) {
	mux.Handle(boardPattern, web.New(web.Config{Service: d.svc, Accounts: d.accounts, Resolver: d.resolver, BaseURL: d.baseURL, OAuth: d.oauth, Logger: d.log,
		Webhooks: d.webhooks}))
}
