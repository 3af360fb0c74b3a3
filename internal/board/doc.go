// Package board is the domain of ticket-ledger: workspaces, tickets, notes,
// the event history, validation, the ai_policy rules, domain errors with
// codes, and the use cases (Service). MCP, REST, the web board and the task
// worker all call the same Service; none of them repeats a rule.
//
// board imports no adapter. Storage is reached through the Store interface:
// what the use cases read and write, and nothing else (the people, token
// and OAuth stores are internal/auth's and internal/oauth's contracts,
// moving a board internal/boardfile's). Every backend implements it and the
// storetest suite checks it.
package board
