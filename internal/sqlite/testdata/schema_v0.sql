CREATE TABLE IF NOT EXISTS workspaces (
	slug        TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	ai_policy   TEXT NOT NULL,
	last_number INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tickets (
	id           TEXT PRIMARY KEY,
	workspace    TEXT NOT NULL REFERENCES workspaces(slug),
	number       INTEGER NOT NULL,
	title        TEXT NOT NULL,
	body         TEXT NOT NULL,
	search_text  TEXT NOT NULL, -- lower(title || body), for case-insensitive query
	status       TEXT NOT NULL,
	priority     TEXT NOT NULL,
	owner        TEXT,
	due          TEXT,
	tags         TEXT NOT NULL, -- JSON array
	links        TEXT NOT NULL, -- JSON array
	created_by   TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	updated_at   TEXT NOT NULL,
	completed_at TEXT,
	url          TEXT NOT NULL,
	version      INTEGER NOT NULL,
	UNIQUE (workspace, number)
);
CREATE INDEX IF NOT EXISTS tickets_by_status ON tickets (workspace, status, number);
CREATE TABLE IF NOT EXISTS notes (
	id         TEXT PRIMARY KEY,
	ticket_id  TEXT NOT NULL REFERENCES tickets(id),
	body       TEXT NOT NULL,
	author     TEXT NOT NULL,
	source     TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_by_ticket ON notes (ticket_id, created_at);
CREATE TABLE IF NOT EXISTS events (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- append order
	id         TEXT NOT NULL UNIQUE,
	workspace  TEXT NOT NULL,
	ticket_id  TEXT,
	data       TEXT NOT NULL -- the whole board.Event as JSON
);
CREATE INDEX IF NOT EXISTS events_by_workspace ON events (workspace, seq);
CREATE INDEX IF NOT EXISTS events_by_ticket ON events (ticket_id, seq);
CREATE TABLE IF NOT EXISTS requests (
	principal   TEXT NOT NULL,
	request_id  TEXT NOT NULL,
	tool        TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	args        TEXT NOT NULL,
	status      TEXT NOT NULL,
	result      TEXT,
	owner       TEXT,
	lease_until TEXT,
	created_at  TEXT NOT NULL,
	expires_at  TEXT NOT NULL,
	PRIMARY KEY (principal, request_id)
);
CREATE INDEX IF NOT EXISTS requests_by_expiry ON requests (expires_at);
