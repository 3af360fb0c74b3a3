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
CREATE TABLE IF NOT EXISTS sign_in_failures (
	handle     TEXT NOT NULL,
	at         TEXT NOT NULL,
	keep_until TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failures_by_handle ON sign_in_failures (handle, at);
`

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
