module github.com/ticket-ledger/ticket-ledger/bench/restrouting

go 1.26.8

require (
	github.com/danielgtaylor/huma/v2 v2.37.2
	github.com/ticket-ledger/ticket-ledger v0.0.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

replace github.com/ticket-ledger/ticket-ledger => ../..
