package sqlite

// peopleSchema holds people and their credentials (people.go); applied on
// open after schema, idempotent like it. Secrets are stored only as hashes.
const peopleSchema = `
CREATE TABLE IF NOT EXISTS people (
	handle        TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	role          TEXT NOT NULL,
	password_hash TEXT NOT NULL DEFAULT '',
	disabled      INTEGER NOT NULL DEFAULT 0,
	created_at    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invitations (
	token_hash TEXT PRIMARY KEY,
	handle     TEXT NOT NULL REFERENCES people(handle),
	created_by TEXT NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
	id_hash    TEXT PRIMARY KEY,
	handle     TEXT NOT NULL REFERENCES people(handle),
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);
DROP TABLE IF EXISTS sign_in_failures;
CREATE TABLE IF NOT EXISTS sign_in_slots (
	handle     TEXT NOT NULL,
	slot       INTEGER NOT NULL,
	attempt    TEXT NOT NULL,
	at         TEXT NOT NULL,
	keep_until TEXT NOT NULL,
	PRIMARY KEY (handle, slot)
);
CREATE TABLE IF NOT EXISTS person_events (
	handle TEXT NOT NULL,
	at     TEXT NOT NULL,
	type   TEXT NOT NULL,
	actor  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS person_events_by_handle ON person_events (handle, at);
`

// peopleColumnsAdded are people's columns added after the table was first
// shipped: a file made before them gets them on open (ALTER TABLE has no
// IF NOT EXISTS).
var peopleColumnsAdded = []struct{ name, def string }{
	{"credentials_not_before", "TEXT NOT NULL DEFAULT ''"},
}

// tokenSchema holds API tokens (tokens.go); applied on open after
// peopleSchema, idempotent like it. Only the secret's hash is stored.
const tokenSchema = `
CREATE TABLE IF NOT EXISTS api_tokens (
	id           TEXT PRIMARY KEY,
	hash         TEXT NOT NULL,
	handle       TEXT NOT NULL REFERENCES people(handle),
	agent        TEXT NOT NULL DEFAULT '',
	label        TEXT NOT NULL DEFAULT '',
	created_by   TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	last_used_at TEXT,
	revoked_at   TEXT
);
CREATE INDEX IF NOT EXISTS api_tokens_by_handle ON api_tokens (handle, created_at);
`

// oauthSchema holds the OAuth authorization server's records (oauth.go);
// applied on open after tokenSchema, idempotent like it. Codes and tokens
// are kept under the SHA-256 of their value. A NULL expires_at on a client
// is one kept for good (a registered client with a grant).
const oauthSchema = `
CREATE TABLE IF NOT EXISTS oauth_clients (
	id            TEXT PRIMARY KEY,
	kind          TEXT NOT NULL,
	name          TEXT NOT NULL,
	uri           TEXT NOT NULL DEFAULT '',
	redirect_uris TEXT NOT NULL,
	created_at    TEXT NOT NULL,
	expires_at    TEXT
);
CREATE TABLE IF NOT EXISTS oauth_codes (
	hash         TEXT PRIMARY KEY,
	client_id    TEXT NOT NULL,
	client_name  TEXT NOT NULL,
	redirect_uri TEXT NOT NULL,
	challenge    TEXT NOT NULL,
	resource     TEXT NOT NULL,
	scope        TEXT NOT NULL,
	handle       TEXT NOT NULL,
	agent        TEXT NOT NULL,
	grant_id     TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	expires_at   TEXT NOT NULL,
	used_at      TEXT
);
CREATE TABLE IF NOT EXISTS oauth_grants (
	id           TEXT PRIMARY KEY,
	client_id    TEXT NOT NULL,
	client_name  TEXT NOT NULL,
	handle       TEXT NOT NULL,
	agent        TEXT NOT NULL,
	resource     TEXT NOT NULL,
	scope        TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	expires_at   TEXT NOT NULL,
	last_used_at TEXT,
	revoked_at   TEXT
);
CREATE INDEX IF NOT EXISTS oauth_grants_by_handle ON oauth_grants (handle, created_at);
CREATE TABLE IF NOT EXISTS oauth_tokens (
	hash       TEXT PRIMARY KEY,
	grant_id   TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	used_at    TEXT
);
CREATE INDEX IF NOT EXISTS oauth_tokens_by_grant ON oauth_tokens (grant_id);
CREATE INDEX IF NOT EXISTS oauth_tokens_by_expiry ON oauth_tokens (expires_at);
CREATE INDEX IF NOT EXISTS oauth_codes_by_expiry ON oauth_codes (expires_at);
CREATE INDEX IF NOT EXISTS oauth_grants_by_expiry ON oauth_grants (expires_at);
CREATE TABLE IF NOT EXISTS oauth_registration_windows (
	window_start TEXT PRIMARY KEY,
	n            INTEGER NOT NULL,
	keep_until   TEXT NOT NULL
);
`
