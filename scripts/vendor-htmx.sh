#!/usr/bin/env bash
# Vendors htmx into the binary: internal/web/static/htmx.min.js comes from the
# htmx.org npm package at HTMX_VERSION, whose tarball must have the integrity
# (sha512) pinned below; the file's own SHA-256 is pinned in
# internal/web/static.go, and a test checks the embedded file against it.
# Run it only to move to another 2.0.x release, then update both pins.
set -euo pipefail
HTMX_VERSION=2.0.11
HTMX_INTEGRITY='sha512-Thx/WtpeOQqSrqBCw/A1cwGJGg4UrVa3+sW0GmrM3p4gJgO89ecH4qtbnyzDDWFvBTqjnIMCgELTNt636dtamA=='
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "htmx.org@$HTMX_VERSION" --json > pack.json)
got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[0].integrity)' "$tmp/pack.json")
if [ "$got" != "$HTMX_INTEGRITY" ]; then
  echo "htmx.org@$HTMX_VERSION has integrity $got, want $HTMX_INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tmp/htmx.org-$HTMX_VERSION.tgz" -C "$tmp"
cp "$tmp/package/dist/htmx.min.js" internal/web/static/htmx.min.js
cp "$tmp/package/LICENSE" internal/web/static/htmx.LICENSE
sha256sum internal/web/static/htmx.min.js
