// The MCP Inspector CLI against the server at MCP_URL: `npx mcp-inspector
// --cli URL --method tools/list`, then tools/call of create_ticket, with the
// JSON it prints checked. The Inspector keeps a catalog file; it is pointed
// at a temporary folder so nothing is written to the user's home.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { snapshotToolNames } from '../lib/toolsnaps.mjs';

const url = process.env.MCP_URL;
if (!url) throw new Error('MCP_URL is not set: run these tests through test-tools/run.sh');

const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
process.on('exit', () => rmSync(home, { recursive: true, force: true }));

// inspector runs `npx mcp-inspector --cli URL ...args` (offline: the package
// is installed from the lock file) and returns its exit code and output.
function inspector(...args) {
  return new Promise((resolve) => {
    execFile('npx', ['--offline', 'mcp-inspector', '--cli', url, ...args], {
      cwd: new URL('..', import.meta.url),
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json'), NO_COLOR: '1' },
      timeout: 60_000,
    }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

function json(run) {
  try {
    return JSON.parse(run.stdout);
  } catch {
    assert.fail(`Inspector printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

// The Inspector starts a fresh client per call (1-3 s each); the four
// checks are independent, so they run side by side.
describe('MCP Inspector CLI', { concurrency: true }, () => {
  test('tools/list: every tool of the golden snapshots, with input and output schemas and annotations', async () => {
    const run = await inspector('--method', 'tools/list');
    assert.equal(run.code, 0, run.stderr);
    const { tools } = json(run);
    const names = tools.map((t) => t.name).sort();
    assert.ok(snapshotToolNames.length >= 14, `only ${snapshotToolNames.length} snapshots found`);
    assert.deepEqual(names, snapshotToolNames);
    for (const t of tools) {
      assert.equal(t.inputSchema?.type, 'object', `${t.name} inputSchema`);
      assert.equal(t.outputSchema?.type, 'object', `${t.name} outputSchema`);
      assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', `${t.name} annotations`);
    }
  });

  test('tools/list --strict: no error-severity schema portability problems', async () => {
    const run = await inspector('--method', 'tools/list', '--strict');
    assert.equal(run.code, 0, `exit ${run.code} (6 means error-severity portability problems):\n${run.stderr}`);
    assert.match(run.stderr, /\b0 errors\b/);
  });

  test('tools/call create_ticket: created, then replayed, then read back', async () => {
    const rid = `inspector-${randomUUID()}`;
    const args = ['--method', 'tools/call', '--tool-name', 'create_ticket', '--tool-arg',
      `request_id=${rid}`, 'workspace=inbox', 'title=Filed from the Inspector', 'priority=low', 'tags=["inspector"]'];
    const first = await inspector(...args);
    assert.equal(first.code, 0, first.stderr);
    const created = json(first);
    assert.notEqual(created.isError, true, first.stdout);
    assert.equal(created.structuredContent.replayed, false);
    assert.equal(created.structuredContent.request_id, rid);
    const ticket = created.structuredContent.ticket;
    assert.match(ticket.id, /^inbox-\d+$/);
    assert.equal(ticket.title, 'Filed from the Inspector');
    assert.deepEqual(ticket.tags, ['inspector']);
    // The text content carries the same result, for clients without structured output.
    assert.deepEqual(JSON.parse(created.content[0].text), created.structuredContent);

    const again = json(await inspector(...args));
    assert.equal(again.structuredContent.replayed, true);
    assert.equal(again.structuredContent.ticket.id, ticket.id);

    const read = await inspector('--method', 'tools/call', '--tool-name', 'get_ticket', '--tool-arg', `id=${ticket.id}`);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(json(read).structuredContent.ticket.title, 'Filed from the Inspector');
  });

  test('tools/call create_ticket in the read-only workspace: a tool error the Inspector reports', async () => {
    const run = await inspector('--method', 'tools/call', '--tool-name', 'create_ticket', '--tool-arg',
      `request_id=inspector-${randomUUID()}`, 'workspace=reference', 'title=Not allowed');
    assert.notEqual(run.code, 0, 'the Inspector exits non-zero on isError');
    const res = json(run);
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /workspace 'reference' is read-only for AI/);
  });
});
