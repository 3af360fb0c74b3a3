#!/usr/bin/env bash
# Runs a command with a moto server (a DynamoDB-compatible endpoint) on a
# free loopback port, and stops the server afterwards, however the command
# ends. The command sees the endpoint as DYNAMODB_ENDPOINT and
# LEDGER_TEST_DYNAMODB_ENDPOINT (and its earlier name
# LEDGER_TEST_MOTO_ENDPOINT: what the DynamoDB test variants read), and
# LEDGER_DYNAMODB_SERIALIZE_WRITES=1: moto does not isolate concurrent
# requests, so a server started on it sends one write at a time.
#
#   scripts/with-moto.sh go test ./internal/dynamo/...
#
# Needs moto_server on PATH (pip install 'moto[server]').
set -euo pipefail

if [ "$#" -eq 0 ]; then
	echo "usage: $0 command [args...]" >&2
	exit 2
fi
if ! command -v moto_server >/dev/null 2>&1; then
	echo "with-moto: moto_server is not on PATH; install it with: pip install 'moto[server]'" >&2
	exit 127
fi

# A free port: bind port 0 on loopback and read what the kernel chose.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

log=$(mktemp -t moto.XXXXXX.log)
moto_pid=""
stop() {
	if [ -n "$moto_pid" ] && kill -0 "$moto_pid" 2>/dev/null; then
		kill "$moto_pid" 2>/dev/null || true
		wait "$moto_pid" 2>/dev/null || true
	fi
	rm -f "$log"
}
trap stop EXIT INT TERM

# Another process may take the port between free_port and the bind; try a
# few ports before giving up.
endpoint=""
for attempt in 1 2 3 4 5; do
	port=$(free_port)
	moto_server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
	moto_pid=$!
	# Poll until moto answers (any HTTP status), the process dies, or the
	# deadline passes.
	deadline=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$moto_pid" 2>/dev/null; do
		if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/moto-api/"; then
			endpoint="http://127.0.0.1:$port"
			break
		fi
		sleep 0.1
	done
	[ -n "$endpoint" ] && break
	echo "with-moto: moto did not start on port $port (attempt $attempt):" >&2
	tail -n 5 "$log" >&2 || true
	kill "$moto_pid" 2>/dev/null || true
	wait "$moto_pid" 2>/dev/null || true
	moto_pid=""
done
if [ -z "$endpoint" ]; then
	echo "with-moto: giving up: moto_server never answered" >&2
	exit 1
fi

echo "with-moto: moto at $endpoint (pid $moto_pid)" >&2
export DYNAMODB_ENDPOINT="$endpoint"
export LEDGER_TEST_MOTO_ENDPOINT="$endpoint"
export LEDGER_TEST_DYNAMODB_ENDPOINT="$endpoint"
export LEDGER_DYNAMODB_SERIALIZE_WRITES=1
# Not exec: the trap must run to stop moto when the command ends.
set +e
"$@"
status=$?
set -e
exit "$status"
