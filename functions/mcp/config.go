package main

import (
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/ticket-ledger/ticket-ledger/internal/auth"
	"github.com/ticket-ledger/ticket-ledger/internal/board"
	"github.com/ticket-ledger/ticket-ledger/internal/ledger"
	"github.com/ticket-ledger/ticket-ledger/internal/oauth"
)

// The environment variables the process reads; template.yaml sets these (a
// test holds them equal).
const (
	envAddr           = "LEDGER_ADDR"
	envData           = "LEDGER_DATA"
	envAuthor         = "LEDGER_AUTHOR"
	envBaseURL        = "LEDGER_BASE_URL"
	envRetention      = "LEDGER_RETENTION"
	envStore          = "LEDGER_STORE"
	envAllowedOrigins = "LEDGER_ALLOWED_ORIGINS"
	envTable          = "LEDGER_TABLE"
	envEndpoint       = "DYNAMODB_ENDPOINT"
	envCreateTable    = "LEDGER_CREATE_TABLE"
	// envSerializeWrites=1 sends one DynamoDB write at a time from the
	// process, for endpoints that do not isolate concurrent requests (moto).
	// Off unless set: an endpoint URL alone may be DynamoDB itself.
	envSerializeWrites = "LEDGER_DYNAMODB_SERIALIZE_WRITES"
	envAuth            = "LEDGER_AUTH"
	// envWordsByStream=1 leaves the word index's body words and stale
	// deletions to the table's stream consumer (functions/indexer), which
	// the template deploys; off, the store writes them after each commit.
	envWordsByStream = "LEDGER_WORDS_BY_STREAM"
	// envStateMachine names the Step Functions state machine that runs
	// long imports (Lambda); unset, imports run inside the call there.
	envStateMachine = "LEDGER_STATE_MACHINE_ARN"
)

// Values of LEDGER_STORE.
const (
	storeSQLite   = "sqlite"
	storeDynamoDB = "dynamodb"
)

// config is everything the process reads from its environment.
// docs/configuration.md lists the same variables.
type config struct {
	Addr        string
	DataDir     string
	Author      string
	BaseURL     string
	Retention   time.Duration
	Store       string
	Table       string
	Endpoint    string
	CreateTable bool
	// SerializeWrites: LEDGER_DYNAMODB_SERIALIZE_WRITES.
	SerializeWrites bool
	// WordsByStream: LEDGER_WORDS_BY_STREAM.
	WordsByStream  bool
	AllowedOrigins []string
	// Auth is LEDGER_AUTH: loopback (no credentials) or required.
	Auth auth.Mode
	// BaseURLSet: LEDGER_BASE_URL was given, so links built from it point
	// where people reach the server (the admin commands need that).
	BaseURLSet   bool
	StateMachine string
	// TrustedProxies: LEDGER_TRUSTED_PROXIES, the peers whose forwarded
	// headers (client address, host) are believed.
	TrustedProxies []netip.Prefix
	// AllowPlainHTTP: LEDGER_ALLOW_PLAIN_HTTP, required mode off loopback
	// without https, on purpose.
	AllowPlainHTTP bool
	// lambda: the process answers API Gateway events, whose Host may be
	// the API's own name or a custom domain (no public-host check there).
	lambda bool
	// documents configures fetching OAuth client ID metadata documents:
	// the defaults, except in tests (a test CA, the test server's address).
	documents oauth.FetchConfig
	// tasks is the local task runner, for /healthz (nil on Lambda).
	tasks taskRunnerState
	// metricsOut receives EMF lines (LEDGER_METRICS=emf); nil: none.
	metricsOut io.Writer
	// passwordChecked, if set, is called before each sign-in's password
	// check: tests count the checks with it.
	passwordChecked func()
	// adminCommand: the store is opened by an admin command (people,
	// tokens), which on SQLite gets in between a running server's writes.
	adminCommand bool
	// registrationsPerWindow overrides the store-wide cap of OAuth client
	// registrations per window, in tests; 0: the default.
	registrationsPerWindow int
	// webhooks: LEDGER_WEBHOOK_* (webhooks.go).
	webhooks webhookSettings
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		Addr:    envOr(getenv, envAddr, "127.0.0.1:8080"),
		DataDir: envOr(getenv, envData, "./data"),
		Author:  getenv(envAuthor),
		Store:   envOr(getenv, envStore, storeSQLite),
		Table:   envOr(getenv, envTable, "ticket-ledger"),
		// DYNAMODB_ENDPOINT names any DynamoDB-compatible endpoint; unset means AWS.
		Endpoint:     getenv(envEndpoint),
		StateMachine: getenv(envStateMachine),
	}
	for key, dst := range map[string]*bool{envCreateTable: &c.CreateTable, envSerializeWrites: &c.SerializeWrites, envAllowPlainHTTP: &c.AllowPlainHTTP,
		envWordsByStream: &c.WordsByStream} {
		if v := getenv(key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("%s=%q is not a boolean (use 1 or 0)", key, v)
			}
			*dst = b
		}
	}
	c.BaseURL = "http://" + c.Addr
	if v := getenv(envBaseURL); v != "" {
		u, err := checkBaseURL(v)
		if err != nil {
			return c, err
		}
		c.BaseURL, c.BaseURLSet = u, true
	}
	proxies, err := parseTrustedProxies(getenv(envTrustedProxies))
	if err != nil {
		return c, err
	}
	c.TrustedProxies = proxies
	mode, err := auth.ParseMode(getenv(envAuth))
	if err != nil {
		return c, err
	}
	c.Auth = mode
	if v := getenv(envAllowedOrigins); v != "" {
		for _, o := range strings.Split(v, ",") {
			c.AllowedOrigins = append(c.AllowedOrigins, strings.TrimRight(strings.TrimSpace(o), "/"))
		}
	}
	c.Retention = ledger.DefaultRetention
	if v := getenv(envRetention); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return c, fmt.Errorf("LEDGER_RETENTION=%q is not a duration such as 24h or 36h30m", v)
		}
		c.Retention = d
	}
	if err := ledger.CheckRetention(c.Retention); err != nil {
		return c, fmt.Errorf("LEDGER_RETENTION: %w", err)
	}
	if c.Author != "" && (!strings.HasPrefix(c.Author, "ai:") || board.ValidateAuthor("LEDGER_AUTHOR", c.Author) != nil) {
		return c, fmt.Errorf("LEDGER_AUTHOR=%q must be ai:<name> (letters, digits, . _ -), e.g. ai:claude", c.Author)
	}
	if c.webhooks, err = loadWebhookSettings(getenv); err != nil {
		return c, err
	}
	if c.Store != storeSQLite && c.Store != storeDynamoDB {
		return c, fmt.Errorf("LEDGER_STORE=%q must be sqlite or dynamodb", c.Store)
	}
	return c, nil
}

// principal is the local caller: MCP calls run as LEDGER_AUTHOR.
func (c config) principal() board.Principal {
	return board.Principal{
		Author:         c.Author,
		Source:         board.SourceMCP,
		NoAuthorReason: "the server was started without LEDGER_AUTHOR; restart it with LEDGER_AUTHOR=ai:<name> (for example LEDGER_AUTHOR=ai:claude make run)",
	}
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}
