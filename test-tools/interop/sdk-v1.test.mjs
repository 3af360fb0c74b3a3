// @modelcontextprotocol/sdk (v1, the 2025-11-25 initialize handshake).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { interopSuite, url } from './shared.mjs';

interopSuite({
  label: '@modelcontextprotocol/sdk v1',
  wantVersion: '2025-11-25',
  async connect() {
    const client = new Client({ name: 'ticket-ledger-interop-sdk-v1', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    return { client, version: () => transport.protocolVersion };
  },
  request: (client, method) => client.request({ method, params: {} }, EmptyResultSchema),
});
