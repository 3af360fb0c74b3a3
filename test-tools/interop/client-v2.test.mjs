// @modelcontextprotocol/client (v2) with versionNegotiation auto: probes
// server/discover and must land on the stateless 2026-07-28 revision.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { interopSuite, url } from './shared.mjs';

interopSuite({
  label: '@modelcontextprotocol/client v2',
  wantVersion: '2026-07-28',
  async connect() {
    const client = new Client(
      { name: 'ticket-ledger-interop-client-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return { client, version: () => client.getNegotiatedProtocolVersion() };
  },
  // Any result is accepted: a Standard Schema that validates nothing.
  request: (client, method) => client.request({ method, params: {} },
    { '~standard': { version: 1, vendor: 'ticket-ledger', validate: (value) => ({ value }) } }),
});
