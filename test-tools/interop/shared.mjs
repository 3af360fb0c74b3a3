// The interop checks every official TypeScript client must pass against the
// server at MCP_URL: list tools, create, replay, read back, the claim loop
// (claim_next, add_note, release_ticket), completion and resource links, a
// policy refusal and schema violations that write nothing. Each client's test file supplies
// how to connect and which protocol revision it must negotiate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { snapshotToolNames } from '../lib/toolsnaps.mjs';

export const url = process.env.MCP_URL;
if (!url) throw new Error('MCP_URL is not set: run these tests through test-tools/run.sh');

const readTools = ['list_workspaces', 'get_workspace_summary', 'list_tickets', 'get_ticket', 'list_ticket_notes',
  'list_ticket_history', 'list_activity', 'find_request', 'get_task', 'list_tasks', 'list_inbox'];
const writeTools = ['create_ticket', 'update_ticket', 'move_ticket', 'add_note', 'import_tickets',
  'claim_ticket', 'claim_next', 'release_ticket', 'relate_tickets', 'unrelate_tickets', 'edit_note', 'redact_note',
  'mark_inbox_read'];

/**
 * @param {object} o
 * @param {string} o.label          test suite name
 * @param {string} o.wantVersion    the protocol revision the client must negotiate
 * @param {() => Promise<{client: any, version: () => string}>} o.connect
 * @param {(client: any, method: string) => Promise<unknown>} o.request  a raw JSON-RPC request
 */
export function interopSuite({ label, wantVersion, connect, request }) {
  describe(label, () => {
    let client;
    let negotiated;
    // Unique per run, so a server that outlives one run never replays it.
    const rid = (name) => `${label.replace(/\W+/g, '-')}-${name}-${randomUUID()}`;

    before(async () => {
      const c = await connect();
      client = c.client;
      negotiated = c.version();
    });
    after(async () => {
      await client?.close();
    });

    // A call that must succeed; returns its structured result.
    async function ok(name, args) {
      const res = await client.callTool({ name, arguments: args });
      assert.ok(!res.isError, `${name} failed: ${JSON.stringify(res.content)}`);
      assert.ok(res.structuredContent, `${name} returned no structuredContent`);
      return res.structuredContent;
    }

    // A call that must fail, either as a tool error (isError) or as a
    // JSON-RPC error; returns the error text.
    async function refused(name, args) {
      let res;
      try {
        res = await client.callTool({ name, arguments: args });
      } catch (err) {
        return String(err?.message ?? err);
      }
      assert.equal(res.isError, true, `${name}(${JSON.stringify(args)}) succeeded, want an error: ${JSON.stringify(res)}`);
      return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    }

    async function inboxTicketIDs() {
      const ids = [];
      let cursor;
      do {
        const page = await ok('list_tickets', { workspace: 'inbox', limit: 100, ...(cursor ? { cursor } : {}) });
        ids.push(...page.tickets.map((t) => t.id));
        cursor = page.next_cursor;
      } while (cursor);
      return ids.sort();
    }

    test(`negotiates protocol ${wantVersion}`, () => {
      assert.equal(negotiated, wantVersion);
    });

    test('lists every tool of the golden snapshots with output schemas and annotations', async () => {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      assert.deepEqual([...byName.keys()].sort(), snapshotToolNames);
      for (const name of [...readTools, ...writeTools]) {
        const t = byName.get(name);
        assert.ok(t, `tool ${name} missing from tools/list (got ${[...byName.keys()].join(', ')})`);
        assert.equal(t.inputSchema?.type, 'object', `${name} inputSchema`);
        assert.equal(t.outputSchema?.type, 'object', `${name} has no object outputSchema`);
        assert.ok(t.annotations, `${name} has no annotations`);
        assert.ok(t.description, `${name} has no description`);
      }
      for (const name of readTools) {
        assert.equal(byName.get(name).annotations.readOnlyHint, true, `${name} readOnlyHint`);
      }
      for (const name of writeTools) {
        const a = byName.get(name).annotations;
        assert.equal(a.readOnlyHint ?? false, false, `${name} readOnlyHint`);
        assert.equal(a.idempotentHint, true, `${name} idempotentHint`);
        assert.equal(a.destructiveHint, false, `${name} destructiveHint`);
        assert.ok(byName.get(name).inputSchema.required.includes('request_id'), `${name} requires request_id`);
      }
      for (const t of tools) {
        assert.ok(!JSON.stringify(t.inputSchema).includes('"author"'), `${t.name} must not take an author argument`);
      }
    });

    test('create, replay with the same request_id, read back', async () => {
      const args = {
        request_id: rid('create'),
        workspace: 'inbox',
        title: `Interop via ${label}`,
        body: 'Created by the **official** TypeScript client.',
        priority: 'high',
        tags: ['interop'],
      };
      const first = await ok('create_ticket', args);
      assert.equal(first.replayed, false);
      assert.equal(first.request_id, args.request_id);
      assert.match(first.ticket.id, /^inbox-\d+$/);
      assert.equal(first.ticket.status, 'candidate');
      assert.equal(first.ticket.title, args.title);
      assert.match(first.ticket.created_by, /^ai:/);

      const again = await ok('create_ticket', args);
      assert.equal(again.replayed, true, 'the same request_id and arguments must replay');
      assert.equal(again.ticket.id, first.ticket.id);
      assert.equal(again.ticket.created_at, first.ticket.created_at);

      const read = await ok('get_ticket', { id: first.ticket.id });
      assert.equal(read.ticket.id, first.ticket.id);
      assert.equal(read.ticket.title, args.title);
      assert.equal(read.ticket.body, args.body);
      assert.equal(read.ticket.priority, 'high');
      assert.deepEqual(read.ticket.tags, ['interop']);
      assert.equal(read.history.length, 1, 'one create event: the replay wrote nothing');

      const found = await ok('find_request', { request_id: args.request_id });
      assert.equal(found.status, 'done');
      assert.equal(found.tool, 'create_ticket');
    });

    test('an import runs as a task: working at once, followed with get_task to completed, replayed on retry', async () => {
      const args = { request_id: rid('import'), workspace: 'inbox',
        tickets: Array.from({ length: 150 }, (_, i) => ({ title: `Imported via ${label} ${i}` })) };
      const started = await ok('import_tickets', args);
      assert.equal(started.status, 'working', '150 rows are more than finish inside the call');
      assert.deepEqual(started.progress, { done: 0, total: 150 });
      let task;
      for (const deadline = Date.now() + 30000; ; await new Promise((r) => setTimeout(r, 100))) {
        task = await ok('get_task', { task_id: started.task_id });
        if (task.status !== 'working' || Date.now() > deadline) break;
      }
      assert.equal(task.status, 'completed', task.status_message);
      assert.equal(task.imported, 150);
      const again = await ok('import_tickets', args);
      assert.equal(again.replayed, true);
      assert.equal(again.task_id, started.task_id);
      assert.equal(again.status, 'completed');
      const found = await ok('find_request', { request_id: args.request_id });
      assert.equal(found.status, 'done');
      assert.equal(found.task.status, 'completed');
      assert.deepEqual(found.task.progress, { done: 150, total: 150 });
    });

    test('the claim loop: claim_next, add_note, release_ticket with a status; replays answer the first answer', async () => {
      // A tag of this run alone, so the other client's loop (run beside
      // this one on the same server) never takes this ticket.
      const tag = `claim-${randomUUID().slice(0, 8)}`;
      const created = await ok('create_ticket', { request_id: rid('claimable'), workspace: 'inbox', title: `Work for ${label}`, tags: [tag] });
      const next = { request_id: rid('claim-next'), workspace: 'inbox', tag, lease_seconds: 300 };
      const claimed = await ok('claim_next', next);
      assert.equal(claimed.ticket?.id, created.ticket.id, 'claim_next hands out the free ticket with the tag');
      assert.match(claimed.ticket.claim.by, /^ai:/);
      assert.ok(claimed.claim.token, 'the claim carries its token');
      const again = await ok('claim_next', next);
      assert.equal(again.replayed, true);
      assert.equal(again.ticket.id, created.ticket.id, 'a replay answers the same ticket');
      const none = await ok('claim_next', { ...next, request_id: rid('claim-none') });
      assert.equal(none.ticket, null, 'nothing else is free with the tag');
      assert.equal(none.claim, null);

      const noted = await ok('add_note', { request_id: rid('note'), id: created.ticket.id, body: 'Done: checked with the official client.' });
      assert.equal(noted.replayed, false);
      const release = { request_id: rid('release'), id: created.ticket.id, status: 'waiting_human', reason: 'ready for review', claim_token: claimed.claim.token };
      const released = await ok('release_ticket', release);
      assert.equal(released.ticket.status, 'waiting_human');
      assert.equal(released.ticket.claim, null);
      assert.equal((await ok('release_ticket', release)).replayed, true);

      const read = await ok('get_ticket', { id: created.ticket.id });
      assert.equal(read.ticket.claim, null);
      // Each write once, replays included; the note in between.
      assert.deepEqual(read.history.map((e) => e.type).sort(),
        ['note.added', 'ticket.claimed', 'ticket.created', 'ticket.released']);
    });

    test('completion offers workspace slugs and ticket ids, never a hidden workspace', async () => {
      const ws = await client.complete({ ref: { type: 'ref/resource', uri: 'workspace://{slug}' }, argument: { name: 'slug', value: '' } });
      assert.ok(ws.completion.values.includes('inbox'), `workspaces offered: ${ws.completion.values}`);
      assert.ok(!ws.completion.values.includes('private'), 'the hidden workspace must not be offered');
      const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'triage' }, argument: { name: 'workspace', value: 'in' } });
      assert.deepEqual(prompt.completion.values, ['inbox']);
      const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'ticket://{id}' }, argument: { name: 'id', value: 'inbox-' } });
      assert.ok(ids.completion.values.length > 0 && ids.completion.values.length <= 100, `${ids.completion.values.length} ids`);
      assert.ok(ids.completion.values.every((v) => v.startsWith('inbox-')), `ids offered: ${ids.completion.values}`);
      const hidden = await client.complete({ ref: { type: 'ref/resource', uri: 'ticket://{id}' }, argument: { name: 'id', value: 'private-' } });
      assert.deepEqual(hidden.completion.values, []);
    });

    test('list_tickets links each listed ticket to its ticket:// resource', async () => {
      const res = await client.callTool({ name: 'list_tickets', arguments: { workspace: 'inbox', limit: 3 } });
      assert.ok(!res.isError, JSON.stringify(res.content));
      const links = res.content.filter((c) => c.type === 'resource_link');
      assert.deepEqual(links.map((l) => l.uri), res.structuredContent.tickets.map((t) => `ticket://${t.id}`));
      assert.equal(JSON.stringify(JSON.parse(res.content[0].text)), JSON.stringify(res.structuredContent));
      const read = await client.readResource({ uri: links[0].uri });
      assert.equal(read.contents[0].uri, links[0].uri);
    });

    test('policy: writes to the read-only workspace are refused, hidden ones are not found', async () => {
      const text = await refused('create_ticket', { request_id: rid('ro'), workspace: 'reference', title: 'Not allowed' });
      assert.match(text, /workspace 'reference' is read-only for AI/);
      const hidden = await refused('get_workspace_summary', { workspace: 'private' });
      assert.match(hidden, /workspace 'private' not found/);
    });

    test('schema violations are refused and write nothing', async () => {
      const before = await inboxTicketIDs();
      const unknownField = { request_id: rid('unknown-field'), workspace: 'inbox', title: 'Bad', color: 'red' };
      assert.match(await refused('create_ticket', unknownField), /color/);
      const badPriority = { request_id: rid('bad-priority'), workspace: 'inbox', title: 'Bad', priority: 'whenever' };
      assert.match(await refused('create_ticket', badPriority), /priority/);
      const missingTitle = { request_id: rid('no-title'), workspace: 'inbox' };
      assert.match(await refused('create_ticket', missingTitle), /title/);

      assert.deepEqual(await inboxTicketIDs(), before, 'a refused call must not write a ticket');
      for (const args of [unknownField, badPriority, missingTitle]) {
        const found = await ok('find_request', { request_id: args.request_id });
        assert.equal(found.status, 'unknown', `request ${args.request_id} must have left no record`);
      }
    });

    test('an unknown tool is a JSON-RPC error', async () => {
      await assert.rejects(client.callTool({ name: 'delete_everything', arguments: {} }), /delete_everything/);
    });

    test('an unknown method is JSON-RPC Method not found (-32601)', async () => {
      await assert.rejects(request(client, 'tickets/delete_all'), (err) => {
        // v1 surfaces it as McpError with code -32601; v2 on 2026-07-28 as an
        // HTTP 404 error whose message carries the JSON-RPC error body.
        assert.ok(err.code === -32601 || /"code":-32601/.test(err.message), `got ${err.constructor.name} ${err.code}: ${err.message}`);
        return true;
      });
    });
  });
}
