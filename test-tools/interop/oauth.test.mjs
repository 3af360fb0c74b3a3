// The TypeScript SDK's own OAuth client (@modelcontextprotocol/sdk, an
// OAuthClientProvider) against the server in LEDGER_AUTH=required mode, as a
// second client independent of the go-sdk's: discovery from the 401,
// dynamic registration, PKCE, the person's approval on the board (played by
// oauth/browser.mjs), the code exchange, tool calls as the agent for the
// person, a refresh after the access token stops working, and revocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { approve } from '../oauth/browser.mjs';

const url = process.env.MCP_URL;
const handle = process.env.LEDGER_PERSON;
const password = process.env.LEDGER_PASSWORD;
if (!url || !handle || !password) throw new Error('MCP_URL, LEDGER_PERSON and LEDGER_PASSWORD are not set: run through test-tools/run.sh');
const issuer = new URL(url).origin;

class Provider {
  redirectUrl = 'http://localhost:53682/callback';
  clientMetadata = {
    client_name: 'TypeScript SDK', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'], token_endpoint_auth_method: 'none',
  };
  #state = `ts-${randomUUID()}`;
  state() { return this.#state; }
  clientInformation() { return this.client; }
  saveClientInformation(c) { this.client = c; }
  tokens() { return this.saved; }
  saveTokens(t) { this.saved = t; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(authorizationUrl) {
    this.authorizationUrl = authorizationUrl;
    this.back = await approve(authorizationUrl.href, { handle, password });
  }
}

async function connect(provider) {
  const client = new Client({ name: 'ticket-ledger-oauth-ts', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
}

test('@modelcontextprotocol/sdk OAuth: register, approve, exchange, call, refresh, revoke', async () => {
  const provider = new Provider();
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await assert.rejects(new Client({ name: 'ticket-ledger-oauth-ts', version: '1.0.0' }).connect(transport), UnauthorizedError);
  assert.ok(provider.client?.client_id?.startsWith('tlc_'), `registered client ${JSON.stringify(provider.client)}`);
  assert.equal(provider.client.token_endpoint_auth_method, 'none');
  const sent = provider.authorizationUrl.searchParams;
  assert.equal(sent.get('code_challenge_method'), 'S256');
  assert.equal(sent.get('resource'), url);
  const back = provider.back.searchParams;
  assert.equal(back.get('state'), provider.state(), 'state echoed');
  assert.equal(back.get('iss'), issuer, 'iss in the authorization response');
  await transport.finishAuth(back.get('code'));
  assert.ok(provider.saved?.access_token?.startsWith('tla_'), 'an access token');
  assert.ok(provider.saved?.refresh_token?.startsWith('tlr_'), 'a refresh token');

  const { client } = await connect(provider);
  const requestID = `ts-oauth-${randomUUID()}`;
  const args = { request_id: requestID, workspace: 'inbox', title: 'Filed by the TypeScript SDK through OAuth' };
  const created = await client.callTool({ name: 'create_ticket', arguments: args });
  assert.ok(!created.isError, JSON.stringify(created.content));
  assert.equal(created.structuredContent.ticket.created_by, 'ai:typescript-sdk', 'the suggested agent name, from the client name');

  // The access token stops working (as an hour later): the SDK refreshes
  // on the 401 and retries; the namespace stays, so the retry replays.
  const before = provider.saved;
  provider.saved = { ...before, access_token: 'tla_0000000000000000.' + 'A'.repeat(43) };
  const replayed = await client.callTool({ name: 'create_ticket', arguments: args });
  assert.ok(!replayed.isError, JSON.stringify(replayed.content));
  assert.equal(replayed.structuredContent.replayed, true, 'the retry after the refresh replays');
  assert.notEqual(provider.saved.refresh_token, before.refresh_token, 'the refresh token rotated');

  // Revocation (RFC 7009): the next call is refused.
  const res = await fetch(`${issuer}/oauth/revoke`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: provider.saved.refresh_token, client_id: provider.client.client_id }),
  });
  assert.equal(res.status, 200);
  const raw = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${provider.saved.access_token}`,
      'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  assert.equal(raw.status, 401);
  assert.match(raw.headers.get('www-authenticate'), /error="invalid_token"/);
  await client.close();
});
