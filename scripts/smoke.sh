#!/usr/bin/env bash
# smoke.sh URL TOKEN: checks a deployed board end to end, after `sam deploy`.
#
#   URL    the stack's ApiUrl (https://<id>.execute-api.<region>.amazonaws.com),
#          or its McpUrl (…/mcp)
#   TOKEN  an API token (tl_…) of a person, made with `tokens create --for <handle>`
#          (an agent's token works too once a workspace `smoke` exists)
#
# It checks /healthz, that /mcp refuses a call without a credential, the
# OAuth metadata, MCP initialize (2025-11-25) and server/discover
# (2026-07-28), tools/list, then in the workspace `smoke` (made over REST if
# missing) a create_ticket, its replay with the same request_id
# (replayed: true, the same ticket), find_request, and reads over MCP and
# REST. It prints PASS or FAIL per check and exits 1 if any failed (2 on a
# wrong command line). Each run leaves one ticket in `smoke`.
#
# Needs curl, and jq or python3 to read JSON (SMOKE_JSON=python3 prefers
# python3).
set -u

if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "usage: $0 URL TOKEN   (URL: the stack's ApiUrl or McpUrl; TOKEN: an API token, tl_…)" >&2
  exit 2
fi
base=${1%/}
base=${base%/mcp}
token=$2
command -v curl >/dev/null || { echo "smoke.sh needs curl" >&2; exit 2; }
# SMOKE_JSON=python3 reads JSON with python3 even where jq is installed;
# SMOKE_JSON=jq insists on jq.
if [ "${SMOKE_JSON:-}" = python3 ]; then
  json=python3
elif [ "${SMOKE_JSON:-}" = jq ]; then
  command -v jq >/dev/null || { echo "smoke.sh: SMOKE_JSON=jq but jq is not installed" >&2; exit 2; }
  json=jq
elif command -v jq >/dev/null; then
  json=jq
elif command -v python3 >/dev/null; then
  json=python3
else
  echo "smoke.sh needs jq or python3 to read JSON" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
pass() { printf 'PASS  %s\n' "$1"; passed=$((passed + 1)); }
fail() { printf 'FAIL  %s: %s\n' "$1" "$2"; failed=$((failed + 1)); }

# jget FILE PATH: the value at PATH (.a.b.0.c) of the JSON in FILE, or
# nothing; booleans print as true/false.
jget() {
  if [ "$json" = jq ]; then
    jq -r "try (getpath(\"$2\" | ltrimstr(\".\") | split(\".\") | map(if test(\"^[0-9]+$\") then tonumber else . end)) | if . == null then empty else . end) catch empty" "$1" 2>/dev/null
  else
    python3 - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in [p for p in sys.argv[2].split(".") if p]:
        v = v[int(k)] if isinstance(v, list) else v[k]
except Exception:
    sys.exit(0)
if v is None:
    sys.exit(0)
print(("true" if v else "false") if isinstance(v, bool) else (v if isinstance(v, str) else json.dumps(v)))
PY
  fi
}

# jeach FILE ARRAY FIELD: FIELD of each element of the array at ARRAY.
jeach() {
  if [ "$json" = jq ]; then
    jq -r "try (getpath(\"$2\" | ltrimstr(\".\") | split(\".\"))[] | .$3) catch empty" "$1" 2>/dev/null
  else
    python3 - "$1" "$2" "$3" <<'PY' 2>/dev/null
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in [p for p in sys.argv[2].split(".") if p]:
        v = v[k]
    for e in v:
        print(e[sys.argv[3]])
except Exception:
    pass
PY
  fi
}

# http NAME METHOD PATH [BODY] [extra curl args…]: the answer's body goes to
# $tmp/NAME, its headers to $tmp/NAME.h; prints the status.
http() {
  local name=$1 method=$2 path=$3 body=${4:-}
  shift 4 2>/dev/null || shift $#
  local args=(-sS -o "$tmp/$name" -D "$tmp/$name.h" -w '%{http_code}' -X "$method" --max-time 30)
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  curl "${args[@]}" "$@" "$base$path" 2>"$tmp/$name.err" || echo 000
}

auth=(-H "Authorization: Bearer $token")
mcp_headers=(-H 'Accept: application/json, text/event-stream')
legacy=(-H 'Mcp-Protocol-Version: 2025-11-25')
rpc_id=0
# rpc NAME METHOD PARAMS [curl args…]: one JSON-RPC call to /mcp.
rpc() {
  local name=$1 method=$2 params=$3
  shift 3
  rpc_id=$((rpc_id + 1))
  http "$name" POST /mcp "{\"jsonrpc\":\"2.0\",\"id\":$rpc_id,\"method\":\"$method\",\"params\":$params}" "${mcp_headers[@]}" "$@"
}
# call NAME TOOL ARGS: tools/call with the token (2025-11-25).
call() { rpc "$1" tools/call "{\"name\":\"$2\",\"arguments\":$3}" "${auth[@]}" "${legacy[@]}"; }
rpc_error() { jget "$1" .error.message; }
tool_error() { [ "$(jget "$1" .result.isError)" = true ] && jget "$1" .result.content.0.text; }

echo "smoke check of $base"

status=$(http health GET /healthz)
if [ "$status" = 200 ] && [ "$(jget "$tmp/health" .status)" = ok ]; then
  pass "health: /healthz answers ok (the function reaches its store)"
else
  fail "health" "GET /healthz answered $status $(head -c 300 "$tmp/health" 2>/dev/null) $(cat "$tmp/health.err" 2>/dev/null)"
fi

status=$(rpc anonymous initialize '{}' "${legacy[@]}")
if [ "$status" = 401 ] && grep -qi '^www-authenticate: Bearer .*resource_metadata=' "$tmp/anonymous.h"; then
  pass "auth: /mcp without a credential answers 401 with a Bearer challenge naming the resource metadata"
else
  fail "auth" "/mcp without a credential answered $status (want 401 with WWW-Authenticate: Bearer resource_metadata=…)"
fi

status=$(http prm GET /.well-known/oauth-protected-resource/mcp)
resource=$(jget "$tmp/prm" .resource)
if [ "$status" = 200 ] && [ "${resource%/mcp}" != "$resource" ] && [ -n "$(jget "$tmp/prm" .authorization_servers.0)" ]; then
  pass "oauth: protected resource metadata ($resource)"
else
  fail "oauth protected resource metadata" "answered $status: $(head -c 300 "$tmp/prm")"
fi
status=$(http asm GET /.well-known/oauth-authorization-server)
if [ "$status" = 200 ] && [ -n "$(jget "$tmp/asm" .issuer)" ] && [ -n "$(jget "$tmp/asm" .token_endpoint)" ] &&
  jget "$tmp/asm" .code_challenge_methods_supported | grep -q 'S256'; then
  pass "oauth: authorization server metadata (issuer $(jget "$tmp/asm" .issuer), PKCE S256)"
else
  fail "oauth authorization server metadata" "answered $status: $(head -c 300 "$tmp/asm")"
fi

status=$(rpc init initialize '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"smoke.sh","version":"1"}}' "${auth[@]}" "${legacy[@]}")
if [ "$status" = 200 ] && [ "$(jget "$tmp/init" .result.protocolVersion)" = 2025-11-25 ]; then
  pass "mcp: initialize (2025-11-25) as the token's principal, server $(jget "$tmp/init" .result.serverInfo.name)"
else
  fail "mcp initialize" "answered $status: $(head -c 300 "$tmp/init")"
fi
status=$(rpc discover server/discover '{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"smoke.sh","version":"1"}}}' "${auth[@]}" -H 'Mcp-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover')
if [ "$status" = 200 ] && [ -n "$(jget "$tmp/discover" .result)" ] && [ -z "$(rpc_error "$tmp/discover")" ]; then
  pass "mcp: server/discover (2026-07-28)"
else
  fail "mcp server/discover" "answered $status: $(head -c 300 "$tmp/discover")"
fi

status=$(rpc tools tools/list '{}' "${auth[@]}" "${legacy[@]}")
tools=" $(jeach "$tmp/tools" .result.tools name | tr '\n' ' ')"
missing=""
for t in list_workspaces create_ticket get_ticket find_request; do
  case "$tools" in *" $t "*) ;; *) missing="$missing $t" ;; esac
done
if [ "$status" = 200 ] && [ -z "$missing" ]; then
  pass "mcp: tools/list ($(echo $tools | wc -w) tools)"
else
  fail "mcp tools/list" "answered $status, missing:${missing:- nothing} $(rpc_error "$tmp/tools")"
fi

# The workspace `smoke`: made over REST (by a person's token) if missing.
call workspaces list_workspaces '{}' >/dev/null
if jeach "$tmp/workspaces" .result.structuredContent.workspaces slug | grep -qx smoke; then
  pass "workspace: smoke exists"
else
  status=$(http mkws POST /api/v1/workspaces '{"slug":"smoke","name":"Smoke checks","ai_policy":"read_write"}' \
    "${auth[@]}" -H "Idempotency-Key: smoke-workspace-$(date +%s)-$RANDOM")
  if [ "$status" = 201 ] || [ "$status" = 409 ]; then
    pass "workspace: smoke created over REST"
  else
    fail "workspace smoke" "missing, and creating it answered $status: $(jget "$tmp/mkws" .detail) (make a workspace 'smoke' on the board, or pass a person's token)"
  fi
fi

request_id="smoke-$(date +%s)-$RANDOM$RANDOM"
args="{\"request_id\":\"$request_id\",\"workspace\":\"smoke\",\"title\":\"Smoke check $(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"tags\":[\"smoke\"]}"
status=$(call create create_ticket "$args")
ticket=$(jget "$tmp/create" .result.structuredContent.ticket.id)
if [ "$status" = 200 ] && [ -n "$ticket" ] && [ "$(jget "$tmp/create" .result.structuredContent.replayed)" = false ]; then
  pass "write: create_ticket $ticket (request_id $request_id)"
else
  fail "write create_ticket" "answered $status: $(tool_error "$tmp/create")$(rpc_error "$tmp/create")"
fi

status=$(call replay create_ticket "$args")
if [ "$status" = 200 ] && [ -n "$ticket" ] && [ "$(jget "$tmp/replay" .result.structuredContent.replayed)" = true ] &&
  [ "$(jget "$tmp/replay" .result.structuredContent.ticket.id)" = "$ticket" ]; then
  pass "exactly once: the same request_id again replays (replayed: true, the same $ticket)"
else
  fail "exactly once" "the retry answered $status, replayed=$(jget "$tmp/replay" .result.structuredContent.replayed), ticket $(jget "$tmp/replay" .result.structuredContent.ticket.id) (want true and $ticket) $(tool_error "$tmp/replay")"
fi

status=$(call find find_request "{\"request_id\":\"$request_id\"}")
if [ "$status" = 200 ] && [ "$(jget "$tmp/find" .result.structuredContent.status)" = done ]; then
  pass "find_request: $request_id is done"
else
  fail "find_request" "answered $status: status $(jget "$tmp/find" .result.structuredContent.status) $(tool_error "$tmp/find")"
fi

status=$(call read get_ticket "{\"id\":\"${ticket:-smoke-0}\"}")
if [ "$status" = 200 ] && [ -n "$ticket" ] && [ "$(jget "$tmp/read" .result.structuredContent.ticket.id)" = "$ticket" ]; then
  pass "read: get_ticket $ticket over MCP"
else
  fail "read get_ticket" "answered $status: $(tool_error "$tmp/read")"
fi
status=$(http restread GET "/api/v1/tickets/${ticket:-smoke-0}" "" "${auth[@]}")
if [ "$status" = 200 ] && [ -n "$ticket" ] && [ "$(jget "$tmp/restread" .ticket.id)" = "$ticket" ]; then
  pass "read: GET /api/v1/tickets/$ticket over REST"
else
  fail "read over REST" "answered $status: $(jget "$tmp/restread" .detail)"
fi

echo "smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
