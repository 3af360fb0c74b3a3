#!/usr/bin/env bash
# Develop against AWS locally: everything `sam local start-api` needs but
# Docker. It starts a DynamoDB endpoint, creates the table infra/env.json
# names, makes a first admin and an API token on it, prints the commands to
# run next, and keeps the endpoint up until Ctrl-C.
#
#   make local-aws                          # moto on 127.0.0.1:5000
#   ENDPOINT=http://127.0.0.1:8000 make local-aws   # a DynamoDB Local (or any
#                                           # endpoint) you started yourself
#   DYNAMODB_LOCAL_JAR=~/ddb/DynamoDBLocal.jar make local-aws   # start it here
#
# HOST and PORT say where a started endpoint listens (127.0.0.1:5000; Docker
# Engine on Linux needs the docker0 address, e.g. HOST=172.17.0.1, for the
# container to reach it). ADMIN names the admin (admin). LOCAL_AWS_ONCE=1
# sets up and exits at once (tests); LOCAL_AWS_TABLE overrides the table
# (tests); LEDGER_BIN names a built binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."

HOST=${HOST:-127.0.0.1}
PORT=${PORT:-5000}
ADMIN=${ADMIN:-admin}
ENDPOINT=${ENDPOINT:-}

# The names come from infra/env.json, so the table made here is the one
# the function under sam local opens.
env_value() {
	python3 -c 'import json,sys; print(json.load(open("infra/env.json"))["McpFunction"][sys.argv[1]])' "$1"
}
table=${LOCAL_AWS_TABLE:-$(env_value LEDGER_TABLE)}
base_url=$(env_value LEDGER_BASE_URL)

workdir=$(mktemp -d -t local-aws.XXXXXX)
server_pid=""
stop() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$workdir"
}
trap stop EXIT INT TERM

serialize=0
if [ -z "$ENDPOINT" ]; then
	if [ -n "${DYNAMODB_LOCAL_JAR:-}" ]; then
		command -v java >/dev/null || { echo "local-aws: DYNAMODB_LOCAL_JAR is set but java is not on PATH" >&2; exit 1; }
		lib="$(dirname "$DYNAMODB_LOCAL_JAR")/DynamoDBLocal_lib"
		java -Djava.library.path="$lib" -jar "$DYNAMODB_LOCAL_JAR" -inMemory -port "$PORT" >"$workdir/endpoint.log" 2>&1 &
		what="DynamoDB Local"
	else
		command -v moto_server >/dev/null || { echo "local-aws: neither ENDPOINT, DYNAMODB_LOCAL_JAR nor moto_server (pip install 'moto[server]')" >&2; exit 1; }
		moto_server -H "$HOST" -p "$PORT" >"$workdir/endpoint.log" 2>&1 &
		what="moto"
		serialize=1 # moto does not isolate concurrent requests
	fi
	server_pid=$!
	ENDPOINT="http://$HOST:$PORT"
	deadline=$((SECONDS + 30))
	until curl -s -o /dev/null --max-time 1 "$ENDPOINT/"; do
		if ! kill -0 "$server_pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
			echo "local-aws: $what did not start on $ENDPOINT:" >&2
			tail -n 5 "$workdir/endpoint.log" >&2 || true
			exit 1
		fi
		sleep 0.2
	done
	echo "local-aws: $what at $ENDPOINT" >&2
fi

bin=${LEDGER_BIN:-}
if [ -z "$bin" ]; then
	bin="$workdir/ticket-ledger"
	go build -o "$bin" ./functions/mcp
fi

# The admin commands open the same store the function does; credentials
# only need to exist for a local endpoint.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}
export AWS_REGION=${AWS_REGION:-us-east-1}
export LEDGER_STORE=dynamodb LEDGER_TABLE="$table" DYNAMODB_ENDPOINT="$ENDPOINT" LEDGER_CREATE_TABLE=1
export LEDGER_DYNAMODB_SERIALIZE_WRITES=$serialize LEDGER_BASE_URL="$base_url" LEDGER_AUTH=required

if "$bin" people list | cut -f1 | grep -qx "$ADMIN"; then
	echo "local-aws: $ADMIN already exists on $table; making a new token" >&2
	password="(unchanged)"
else
	password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
	printf '%s\n' "$password" | "$bin" people add "$ADMIN" --admin --password-stdin >&2
fi
token=$("$bin" tokens create --for "$ADMIN" --agent claude --label "sam local")

cat <<EOF
Table $table on $ENDPOINT is ready.
  board sign-in: $ADMIN / $password   (at $base_url once sam local runs)
  API token (ai:claude for $ADMIN, shown once): $token

Next, in another terminal (Docker needed):
  sam build && sam local start-api --env-vars infra/env.json
  claude mcp add --transport http ticket-ledger-local $base_url/mcp --header "Authorization: Bearer $token"
EOF
if [ "$ENDPOINT" != "http://127.0.0.1:5000" ] && [ "$ENDPOINT" != "http://$HOST:5000" ]; then
	echo "  (infra/env.json points the function at port 5000: set its DYNAMODB_ENDPOINT to reach $ENDPOINT)"
fi
if [ "$serialize" = 0 ]; then
	echo "  (not moto: LEDGER_DYNAMODB_SERIALIZE_WRITES in infra/env.json may be 0)"
fi

if [ "${LOCAL_AWS_ONCE:-}" = 1 ] || [ -z "$server_pid" ]; then
	exit 0
fi
echo "local-aws: keeping the endpoint up; Ctrl-C stops it (moto keeps nothing)." >&2
wait "$server_pid"
