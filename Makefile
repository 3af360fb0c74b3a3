# ticket-ledger: `make run` serves locally, `make test` runs every test this
# machine can run. See README.md.
GO       ?= go
ADDR     ?= 127.0.0.1:8080
DATA     ?= ./data
AUTHOR   ?= $(or $(LEDGER_AUTHOR),ai:local)
# Tools that go install puts in the Go bin folder (the Lambda emulator) are
# found by every target, as .ci/run finds them.
export PATH := $(shell $(GO) env GOPATH)/bin:$(PATH)
# The Lambda runtime emulator, which scripts/prereqs.sh installs there.
RIE      = $(shell $(GO) env GOPATH)/bin/aws-lambda-rie

.PHONY: run build test prereqs check-format vet go-test fuzz

# The board at http://$(ADDR)/ (no sign-in: LEDGER_AUTH=loopback, you are
# human:local, an admin) and MCP at /mcp as $(AUTHOR).
AUTH     ?= $(or $(LEDGER_AUTH),loopback)

run:
	LEDGER_ADDR=$(ADDR) LEDGER_DATA=$(DATA) LEDGER_AUTHOR=$(AUTHOR) LEDGER_AUTH=$(AUTH) $(GO) run ./functions/mcp

# Every test: what the tests need (checked in seconds, installed when it
# can be), formatting, vet, the Go suites with the race detector (the fuzz
# targets' seed corpora run as plain tests), then a bounded fuzzing run.
test: prereqs check-format vet go-test fuzz interop lambda-test

# scripts/prereqs.sh checks the tools the tests need and installs the missing
# ones it can (Debian's packages as root, the Lambda emulator with go
# install); without root it stops at once with the command that would.
# .ci/run calls the same script.
prereqs:
	bash scripts/prereqs.sh

check-format:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# With the emulator tests' tag, so their files are vetted too.
vet:
	$(GO) vet -tags lambdaemulator ./...

# One run of every package, with one moto server (scripts/with-moto.sh)
# for the DynamoDB variants: the packages that take a store run each test
# on SQLite, minidyn and moto (internal/testbackends), MCP's included.
# -tags lambdaemulator builds in the tests that run each function's
# bootstrap under the Lambda runtime emulator (the emulator_test.go files:
# chosen by the tag, not by their names). LEDGER_TEST_REQUIRE=1
# (internal/testrequire) makes every test that misses what it needs fail
# instead of skipping: a moto endpoint, Debian's chromium-headless-shell
# and axe-core for the browser tests, moto's Step Functions interpreter
# (internal/sfn), caddy for the team server behind a real proxy, the
# Lambda runtime emulator, the emulator tests' tag; the prereqs target has
# installed the tools.
go-test: $(RIE)
	bash test-tools/install.sh # axe-core, which the board's accessibility check (TestBrowserAxe) injects
	LEDGER_TEST_REQUIRE=1 scripts/with-moto.sh $(GO) test -race -count=1 -timeout 30m -tags lambdaemulator ./...

# Every DynamoDB test variant against any DynamoDB-compatible endpoint, such
# as DynamoDB Local, the Lambda emulator tests included: make test-dynamodb
# ENDPOINT=http://localhost:8000 (RUN='regexp' narrows it). The variants
# keep the name moto: moto is this repository's endpoint (DynamoDB Local's
# licence keeps it out of the tooling here), and their budgets allow for a
# slow endpoint.
ENDPOINT ?=
RUN ?=
.PHONY: test-dynamodb
test-dynamodb:
	@test -n "$(ENDPOINT)" || { echo "make test-dynamodb needs ENDPOINT=http://host:port, a DynamoDB-compatible endpoint" >&2; exit 2; }
	LEDGER_TEST_DYNAMODB_ENDPOINT=$(ENDPOINT) $(GO) test -race -count=1 -timeout 30m -tags lambdaemulator -run '$(RUN)' ./internal/dynamo ./internal/rest ./internal/web ./internal/oauth ./internal/mcpserver ./functions/mcp

# Each fuzz target explores new inputs for a bounded time (go test takes one
# -fuzz target per package run): the surfaces' create calls for 10 s each;
# update_ticket, the JSON-RPC envelope check, the canonical arguments and
# the suggested agent names for 5 s each (40 s in all). What the engine finds interesting stays in the
# build cache; a failing input is written to the package's
# testdata/fuzz/<Target>/, to be committed with its fix so that every later
# run repeats it. FUZZTIME and FUZZTIME_SHORT set the times. scripts/fuzz.sh
# runs one target, and tries again a run that the engine itself failed at
# its deadline having found nothing.
FUZZTIME ?= 10s
FUZZTIME_SHORT ?= 5s
fuzz:
	GO=$(GO) scripts/fuzz.sh ./internal/mcpserver FuzzCreateTicketArguments $(FUZZTIME)
	GO=$(GO) scripts/fuzz.sh ./internal/rest FuzzCreateTicketBody $(FUZZTIME)
	GO=$(GO) scripts/fuzz.sh ./internal/mcpserver FuzzUpdateTicketArguments $(FUZZTIME_SHORT)
	GO=$(GO) scripts/fuzz.sh ./internal/mcpserver FuzzMalformed $(FUZZTIME_SHORT)
	GO=$(GO) scripts/fuzz.sh ./internal/ledger FuzzCanonicalArgs $(FUZZTIME_SHORT)
	GO=$(GO) scripts/fuzz.sh ./internal/oauth FuzzDefaultAgentNameIsValid $(FUZZTIME_SHORT)

# The server against the official MCP tooling: the TypeScript SDK clients (both
# revisions), the MCP Inspector CLI and the conformance suite for 2025-11-25
# and 2026-07-28. Installs the pinned npm packages (test-tools/package-lock.json)
# on first use. See test-tools/run.sh.
.PHONY: interop
interop:
	bash test-tools/run.sh

# create_ticket on the embedded store vs a bare go-sdk no-op tool over HTTP,
# at 1 and 32 clients: throughput, p50/p99 and the ratio, medians of rounds
# (bench/cmd/createvsnoop; flags via BENCHFLAGS, e.g. BENCHFLAGS='-rounds 9
# -direct'). Then the go test benchmarks. Not part of `make test`.
BENCHFLAGS ?=
.PHONY: bench
bench:
	$(GO) run ./bench/cmd/createvsnoop $(BENCHFLAGS)
	$(GO) test -run '^$$' -bench . -benchtime 2s ./bench

# Bounded cost at scale: grows a board to 1k, 10k and 100k tickets and prints
# every read's p50/p99 on SQLite and its DynamoDB requests and items read on
# moto (bench/cmd/scale, which starts moto with its transaction snapshot fix,
# scripts/moto-stepfunctions.py, unless DYNAMODB_ENDPOINT names a server),
# then the server's peak memory while 32 clients read the largest tickets
# the board allows (bench/cmd/memory). On 2 cores SQLite takes about 10
# minutes (growing 100 000 tickets through the service); moto over an hour:
# the board grows through the store's batch put (as a board file import),
# about 30 items per transaction, then its word items (about 3 million
# items at 100 000 tickets), and moto walks the whole table for every index
# Query (~20 s at 100 000 tickets before the word items);
# SCALEFLAGS='-sizes 1000,10000' takes about 15; SCALEFLAGS="-stores dynamodb
# -only '^search'" measures only the word-search rows (about 40 minutes to
# 100k on moto, growing the word items). Not part of `make test`;
# figures in docs/benchmarks.md.
SCALEFLAGS ?=
.PHONY: bench-scale
bench-scale:
	$(GO) run ./bench/cmd/scale $(SCALEFLAGS)
	$(GO) run ./bench/cmd/memory

# The live board's poll (internal/web, BenchmarkLivePoll): store requests
# per idle open board, ticket page, header unread count and Inbox page per
# minute, and the poll's p50, on
# SQLite and DynamoDB on minidyn; on moto too when
# LEDGER_TEST_DYNAMODB_ENDPOINT is set (scripts/with-moto.sh make
# bench-live). Not part of `make test`; figures in docs/benchmarks.md.
.PHONY: bench-live
bench-live:
	$(GO) test -run '^$$' -bench BenchmarkLivePoll -benchtime 2s ./internal/web

# One busy workspace on DynamoDB (bench/cmd/hot): K = 1, 4, 16, 32 store
# instances, each its own client, retry quota and caches, one call at a time,
# mixing creates, moves, notes and updates into one workspace under the
# conflict model (internal/dynamotest, transactions hold their items 10 ms),
# on minidyn (40 calls per instance, 10 of them creates: enough that every
# instance leases a block of numbers after its first, so the counter's
# writes per create show the steady state) and moto (5 per instance: moto
# answers one write at a time). Each instance warms up with 4 calls first.
# A few minutes on minidyn and on moto on 2 cores; HOTFLAGS='-duration 30s'
# runs each K for 30 s instead. Not part of
# `make test`; figures in docs/benchmarks.md.
HOTFLAGS ?=
.PHONY: bench-hot
bench-hot:
	$(GO) run ./bench/cmd/hot -stores minidyn -calls 40 $(HOTFLAGS)
	scripts/with-moto.sh $(GO) run ./bench/cmd/hot -stores moto -calls 5 $(HOTFLAGS)

# A workspace as a work queue (bench/cmd/claims): 32 agents over 4 service
# instances call claim_next until none is left, releasing each ticket as
# done; every ticket must be claimed exactly once. SQLite with 2 000
# tickets; minidyn and minidyn under the conflict model with 200; moto
# with 50, sized for CI: it copies the table on every transaction and
# takes one write at a time, so 200 take longer than a CI job has.
# CLAIMSFLAGS adds flags. Not part of `make test`; figures in
# docs/benchmarks.md.
CLAIMSFLAGS ?=
.PHONY: bench-claims
bench-claims:
	$(GO) run ./bench/cmd/claims -stores sqlite -tickets 2000 $(CLAIMSFLAGS)
	$(GO) run ./bench/cmd/claims -stores minidyn,conflicts -tickets 200 $(CLAIMSFLAGS)
	scripts/with-moto.sh $(GO) run ./bench/cmd/claims -stores moto -tickets 50 $(CLAIMSFLAGS)

# Webhook delivery on the local server's store: 10 000 events to three
# loopback receivers, one failing 20 % of its deliveries, with a short retry
# schedule; checks at-least-once, duplicates only after failures and order
# per ticket, and prints the delay from write to delivery
# (docs/benchmarks.md). WEBHOOKSFLAGS passes more flags.
.PHONY: bench-webhooks
bench-webhooks:
	$(GO) run ./bench/cmd/webhooks -events 10000 -fail 0.2 -retry 20ms $(WEBHOOKSFLAGS)

# --- Lambda packaging (template.yaml, README "Deploy") ---------------------
# `make build` writes ./bootstrap (the agents' function), web/bootstrap
# (the board's), worker/bootstrap, indexer/bootstrap and the webhooks'
# webhookfanout/bootstrap and webhooksender/bootstrap for Lambda
# (provided.al2023, arm64); `sam build` runs build-<Function> with
# ARTIFACTS_DIR set.
# The functions are arm64 (template.yaml); LAMBDA_GOARCH=amd64 builds an
# x86 copy for `sam local` where Docker cannot emulate arm64 (README).
LAMBDA_GOARCH ?= arm64
# nethttpomithttp2: the functions' only HTTP clients (DynamoDB, Step Functions,
# client metadata documents) work over HTTP/1.1, and net/http's bundled
# HTTP/2 is 0.3 MB of each bootstrap (docs/benchmarks.md).
LAMBDA_BUILD = CGO_ENABLED=0 $(GO) build -tags lambda.norpc,lambda,nethttpomithttp2 -trimpath -ldflags "-s -w"
# The agents' function (McpFunction: /mcp, REST, the OAuth endpoints that
# are not pages) is the same build without the web board (noboard): the
# board's html/template keeps ~1.7 MiB of methods in the bootstrap and costs
# its start. People's pages go to WebFunction, the full build
# (docs/decisions.md, "Two builds of one server on Lambda"). A test holds
# these tags to LAMBDA_BUILD's plus noboard.
AGENTS_BUILD = CGO_ENABLED=0 $(GO) build -tags lambda.norpc,lambda,nethttpomithttp2,noboard -trimpath -ldflags "-s -w"

.PHONY: build-McpFunction build-WebFunction build-WorkerFunction build-IndexerFunction build-WebhookFanoutFunction build-WebhookSenderFunction lambda-test bench-coldstart bench-import

build:
	GOOS=linux GOARCH=arm64 $(AGENTS_BUILD) -o bootstrap ./functions/mcp
	GOOS=linux GOARCH=arm64 $(LAMBDA_BUILD) -o web/bootstrap ./functions/mcp
	GOOS=linux GOARCH=arm64 $(LAMBDA_BUILD) -o worker/bootstrap ./functions/worker
	GOOS=linux GOARCH=arm64 $(LAMBDA_BUILD) -o indexer/bootstrap ./functions/indexer
	GOOS=linux GOARCH=arm64 $(LAMBDA_BUILD) -o webhookfanout/bootstrap ./functions/webhookfanout
	GOOS=linux GOARCH=arm64 $(LAMBDA_BUILD) -o webhooksender/bootstrap ./functions/webhooksender

# The agents' function: /mcp, REST and OAuth without the board.
build-McpFunction:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(AGENTS_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/mcp

# The people's function (template.yaml WebFunction): the full build, sent
# the board's paths.
build-WebFunction:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/mcp

# The Step Functions task worker (template.yaml WorkerFunction).
build-WorkerFunction:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/worker

# The word index's stream consumer (template.yaml IndexerFunction).
build-IndexerFunction:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/indexer

# The webhooks' stream fan-out and queue sender (template.yaml
# WebhookFanoutFunction, WebhookSenderFunction).
build-WebhookFanoutFunction:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/webhookfanout

build-WebhookSenderFunction:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/webhooksender

$(RIE):
	bash scripts/prereqs.sh

# The template lints clean (the Go tests in go-test hold it to the code
# and run the functions under the Lambda runtime emulator). cfn-lint does
# not follow the state machine's transitions; asl-validator (npm, pinned in
# test-tools) does. Then the DynamoDB store's suite again as the functions
# build it (-tags lambda: its Lambda client, no board scan), on minidyn
# (its moto variants ran in go-test): all of it but the board-moving
# contract, which that build refuses by design (a function never exports
# or imports a board), so a new test runs there without being named.
lambda-test:
	cfn-lint template.yaml
	bash test-tools/install.sh
	test-tools/node_modules/.bin/asl-validator --json-path infra/statemachine.asl.json
	$(GO) test -race -count=1 -timeout 30m -tags lambda -skip '^TestTransfer$$' ./internal/dynamo

# Everything `sam local start-api` needs but Docker: a DynamoDB endpoint
# (moto, or ENDPOINT=… / DYNAMODB_LOCAL_JAR=… for DynamoDB Local), the table
# infra/env.json names, a first admin and a token; it prints the sam and
# claude lines and keeps the endpoint up until Ctrl-C (scripts/local-aws.sh).
.PHONY: local-aws
local-aws:
	scripts/local-aws.sh

# Cold start under the emulator: the agents' bootstrap (AGENTS_BUILD, what
# /mcp reaches) against a minimal go-sdk function with one no-op tool
# (bench/noop-lambda); the board's build is only sized. BENCHFLAGS='-before DIR'
# measures another copy of the module (an earlier commit, from git archive)
# in the same run. Not part of `make test`.
bench-coldstart: $(RIE)
	PATH="$(dir $(RIE)):$$PATH" $(GO) run ./bench/cmd/coldstart $(BENCHFLAGS)

# The REST router's cost at start: internal/rest (ServeMux) against the same
# API on huma v2, side by side (bench/restrouting, its own module so huma
# never enters go.mod). Not part of `make test`.
.PHONY: bench-restrouting
bench-restrouting:
	cd bench/restrouting && $(GO) run . $(BENCHFLAGS)

# import_tickets of 10 000 rows, side by side on the embedded store
# (tickets/s, target >= 5000) and on moto's DynamoDB (requests per ticket,
# target <= 0.05), with the chunk worker as the runners drive it. Not part
# of `make test`; figures in docs/benchmarks.md.
bench-import:
	$(GO) run ./bench/cmd/importbench $(BENCHFLAGS)

# Moving a board of 10 000 tickets: tickets per second of export and
# import-board both ways, SQLite -> SQLite and SQLite -> DynamoDB (moto,
# started with scripts/moto-stepfunctions.py for its transaction snapshot
# fix; EXPORTFLAGS='-endpoint URL' names another), medians of rounds
# (bench/cmd/exportbench). Not part of `make test`; figures in
# docs/benchmarks.md.
.PHONY: bench-export
bench-export:
	$(GO) run ./bench/cmd/exportbench $(EXPORTFLAGS)
