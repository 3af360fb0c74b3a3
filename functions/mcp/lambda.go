package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/mcpserver"
	"github.com/ticket-ledger/ticket-ledger/internal/openingstore"
)

// envRuntimeAPI is set by the Lambda runtime (and its emulator) for the
// process it starts: its presence is what "inside Lambda" means.
const envRuntimeAPI = "AWS_LAMBDA_RUNTIME_API"

// deployedEnv is every variable template.yaml gives the function, so that
// `sam local start-api --env-vars infra/env.json` can override each of them
// (SAM only overrides variables the template declares). A test holds the
// template to this list.
var deployedEnv = []string{envStore, envTable, envAuth, envRetention, envBaseURL, envAllowedOrigins, envEndpoint, envCreateTable,
	envSerializeWrites, envStateMachine, envWordsByStream}

// lambdaStdout is where the function writes its EMF lines: Lambda sends
// stdout to the function's log group.
var lambdaStdout io.Writer = os.Stdout

func inLambda() bool { return os.Getenv(envRuntimeAPI) != "" }

// runLambda builds the store, its client and the handler once, in the
// container's init phase, and then serves invocations until the runtime
// stops the process. A failed start exits: Lambda reports it as an init
// error with the log line above it.
func runLambda(log *slog.Logger) {
	// Init allocates much that lives on (the tool schemas) and little that
	// does not: collecting during it only costs the cold start time.
	gc := debug.SetGCPercent(-1)
	fn, err := newLambdaFunction(context.Background(), lambdaGetenv(os.Getenv), log)
	debug.SetGCPercent(gc)
	if err != nil {
		log.Error("ticket-ledger could not start in Lambda", "err", err)
		os.Exit(1)
	}
	lambda.Start(fn.Handle)
}

// lambdaGetenv defaults LEDGER_STORE to dynamodb and LEDGER_AUTH to
// required: in Lambda they are the only store and mode there are.
func lambdaGetenv(getenv func(string) string) func(string) string {
	return func(key string) string {
		v := getenv(key)
		switch {
		case v != "":
			return v
		case key == envStore:
			return storeDynamoDB
		case key == envAuth:
			return string(auth.ModeRequired)
		case key == envMetrics:
			return "emf" // CloudWatch extracts the metrics from the log group
		}
		return v
	}
}

// lambdaFunction answers API Gateway HTTP API (payload 2.0) events with the
// same http.Handler the local server uses.
type lambdaFunction struct {
	cfg   config
	store servedStore
	log   *slog.Logger

	once    sync.Once
	app     *app
	adapter *httpadapter.HandlerAdapterV2
	err     error
}

// newLambdaFunction starts opening the store in the background and, when
// LEDGER_BASE_URL names the public URL, starts building the handler. A
// cold start's first request does not wait for the open: a request without
// a credential needs no store, and a credential's reads go to the store as
// soon as its client is built (internal/openingstore); what needs the
// seeded workspaces waits until the store is open. Without
// LEDGER_BASE_URL the handler is built on the first event, from the API's
// domain name: the template cannot pass the API's URL to the function the
// API invokes (that would be a dependency cycle).
func newLambdaFunction(ctx context.Context, getenv func(string) string, log *slog.Logger) (*lambdaFunction, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	if cfg.Store != storeDynamoDB {
		return nil, errors.New("in Lambda the store is DynamoDB (LEDGER_STORE=dynamodb): a file store would be private to one instance, " +
			"so a retry that reached another instance would write a second time")
	}
	if cfg.Auth != auth.ModeRequired {
		return nil, errors.New("in Lambda every request needs a credential (LEDGER_AUTH=required): the function is reachable from the internet, " +
			"so the credential-free loopback mode is refused")
	}
	if err := checkPublicURL(cfg); err != nil {
		return nil, err
	}
	cfg.metricsOut = metricsWriter(getenv, lambdaStdout)
	cfg.lambda = true
	store := openingstore.InBackgroundEarly(ctx, func(ctx context.Context, early func(servedStore)) (servedStore, error) {
		return openStore(ctx, cfg, log, early)
	}, log)
	fn := &lambdaFunction{cfg: cfg, store: store, log: log}
	if getenv(envBaseURL) != "" {
		// Built while the runtime fetches the first event; Handle waits
		// for it through the same once.
		go fn.once.Do(func() { fn.build(cfg.BaseURL) })
	}
	return fn, nil
}

func (f *lambdaFunction) build(baseURL string) {
	cfg := f.cfg
	cfg.BaseURL = baseURL
	svc, err := newService(cfg, f.store, f.log)
	if err != nil {
		f.err = err
		return
	}
	if cfg.StateMachine != "" {
		// Long imports run as Step Functions executions (internal/sfn).
		runner, err := newStepFunctionsRunner(context.Background(), cfg)
		if err != nil {
			f.err = err
			return
		}
		svc.SetRunner(runner)
	}
	// BehindProxy: the Host is API Gateway's public name, not loopback.
	a := routes(cfg, f.store, svc, f.log, mcpserver.HandlerOptions{AllowedOrigins: cfg.AllowedOrigins, BehindProxy: true})
	f.app, f.adapter = a, httpadapter.NewV2(implicitOK(a))
}

// implicitOK answers 200 for a handler that returns without writing, as
// net/http does; the adapter would otherwise fail the invocation.
func implicitOK(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &wroteWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		if !rw.wrote {
			w.WriteHeader(http.StatusOK)
		}
	})
}

type wroteWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *wroteWriter) WriteHeader(status int) { w.wrote = true; w.ResponseWriter.WriteHeader(status) }

func (w *wroteWriter) Write(b []byte) (int, error) { w.wrote = true; return w.ResponseWriter.Write(b) }

// Handle is the Lambda handler: one event, one request through the
// http.Handler, one response. Its context ends at the invocation deadline.
// The MCP server is built on the first request that gets past the
// credential check (routes.go); for a call to /mcp that carries a credential
// it starts being built now, so that it is built while the credential's
// reads are on the wire rather than after them.
func (f *lambdaFunction) Handle(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	f.once.Do(func() {
		// LEDGER_BASE_URL, when set, wins even when this event gets here
		// before the build started at init: the issuer must not depend on
		// which of the two ran first.
		base := f.cfg.BaseURL
		if !f.cfg.BaseURLSet {
			base = publicBaseURL(ev)
		}
		f.build(base)
	})
	if f.err != nil {
		return events.APIGatewayV2HTTPResponse{}, f.err
	}
	if ev.RawPath == "/mcp" && carriesCredential(ev) {
		go f.app.mcp()
	}
	return f.adapter.ProxyWithContext(ctx, ev)
}

// carriesCredential says whether an event has a bearer token or a cookie
// (API Gateway passes cookies apart from the headers, whose names it
// lower-cases).
func carriesCredential(ev events.APIGatewayV2HTTPRequest) bool {
	return ev.Headers["authorization"] != "" || len(ev.Cookies) > 0 || ev.Headers["cookie"] != ""
}

// publicBaseURL is where the API answers, as the event tells it.
func publicBaseURL(ev events.APIGatewayV2HTTPRequest) string {
	host := ev.RequestContext.DomainName
	if host == "" {
		for k, v := range ev.Headers {
			if strings.EqualFold(k, "host") {
				host = v
			}
		}
	}
	if host == "" {
		host = "localhost"
	}
	return "https://" + host
}
