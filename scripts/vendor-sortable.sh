#!/usr/bin/env bash
# Vendors SortableJS into the binary: internal/web/static/sortable.min.js
# comes from the sortablejs npm package at SORTABLE_VERSION, whose tarball
# must have the integrity (sha512) pinned below; the file's own SHA-256 is
# pinned in internal/web/static.go, and a test checks the embedded file
# against it. The board's drag and drop (static/board-dnd.js) uses it; no
# page loads it from a CDN. Run it only to move to another release, then
# update both pins.
set -euo pipefail
SORTABLE_VERSION=1.15.7
SORTABLE_INTEGRITY='sha512-Kk8wLQPlS+yi1ZEf48a4+fzHa4yxjC30M/Sr2AnQu+f/MPwvvX9XjZ6OWejiz8crBsLwSq8GHqaxaET7u6ux0A=='
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "sortablejs@$SORTABLE_VERSION" --json > pack.json)
got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[0].integrity)' "$tmp/pack.json")
if [ "$got" != "$SORTABLE_INTEGRITY" ]; then
  echo "sortablejs@$SORTABLE_VERSION has integrity $got, want $SORTABLE_INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tmp/sortablejs-$SORTABLE_VERSION.tgz" -C "$tmp"
cp "$tmp/package/Sortable.min.js" internal/web/static/sortable.min.js
cp "$tmp/package/LICENSE" internal/web/static/sortable.LICENSE
sha256sum internal/web/static/sortable.min.js
