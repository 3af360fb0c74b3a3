// Runs the pinned conformance suite's authorization-server scenarios
// (`conformance authorization`, @modelcontextprotocol/conformance) against
// the server's own authorization server, and judges them: every check must
// be SUCCESS (no FAILURE, WARNING or SKIPPED).
//
//   node conformance/authorization.mjs --issuer http://127.0.0.1:PORT --handle alice --password-file F --out DIR
//
// The suite needs a registered client and a person to approve: this script
// registers a public client (dynamic registration) whose redirect URI is the
// suite's callback (http://127.0.0.1:<port>/callback), starts the suite, and
// when it prints the authorization URL, plays the person (oauth/browser.mjs:
// sign in, approve) and delivers the redirect to the suite's callback, which
// then exchanges the code at the token endpoint.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { approve } from '../oauth/browser.mjs';

const root = resolve(new URL('.', import.meta.url).pathname, '..');
const suiteBin = join(root, 'node_modules', '.bin', 'conformance');
const { values: opts } = parseArgs({
  options: { issuer: { type: 'string' }, handle: { type: 'string' }, 'password-file': { type: 'string' }, out: { type: 'string' } },
});
if (!opts.issuer || !opts.handle || !opts['password-file'] || !opts.out) {
  console.error('usage: node conformance/authorization.mjs --issuer URL --handle H --password-file F --out DIR');
  process.exit(2);
}
const issuer = opts.issuer.replace(/\/$/, '');
const password = readFileSync(opts['password-file'], 'utf8').trim();
mkdirSync(opts.out, { recursive: true });

const freePort = () => new Promise((ok, fail) => {
  const s = createServer();
  s.on('error', fail);
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});

const port = await freePort();
const redirect = `http://127.0.0.1:${port}/callback`;
const reg = await fetch(`${issuer}/oauth/register`, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none' }),
});
if (reg.status !== 201) {
  console.error(`registering the suite's client failed: HTTP ${reg.status} ${await reg.text()}`);
  process.exit(1);
}
const { client_id: clientID } = await reg.json();

const results = join(opts.out, 'results');
const child = spawn(suiteBin, ['authorization', '--url', issuer, '--client-id', clientID, '--port', String(port),
  '--resource', `${issuer}/mcp`, '-o', results], { stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
let approved = null;
// The suite prints the URL, then its callback server starts listening: the
// browser is sent back there only once it says so.
let callbackReady;
const listening = new Promise((ok) => { callbackReady = ok; });
const authPrefix = `${issuer}/oauth/authorize?`;
let buffered = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    if (line.startsWith(`Callback server started: http://127.0.0.1:${port}`)) callbackReady();
    if (line.startsWith(authPrefix) && !approved) {
      // The person approves; the browser then follows the redirect to the
      // suite's callback server, which takes the code.
      approved = approve(line, { handle: opts.handle, password, agent: 'conformance' })
        .then(async (back) => { await listening; return fetch(back); })
        .then((res) => res.text())
        .catch((err) => { output += `\n[approval failed: ${err.stack ?? err}]\n`; child.kill(); });
    }
  }
});
child.stderr.on('data', (chunk) => { output += chunk; });
const code = await new Promise((ok) => child.on('close', ok));
await approved;
writeFileSync(join(opts.out, 'suite.log'), output);

// Every check of every scenario, as the suite wrote them.
const lines = [];
let bad = 0;
let seen = 0;
if (existsSync(results)) {
  for (const dir of readdirSync(results).sort()) {
    const file = join(results, dir, 'checks.json');
    if (!existsSync(file)) continue;
    for (const c of JSON.parse(readFileSync(file, 'utf8'))) {
      seen++;
      const ok = c.status === 'SUCCESS';
      if (!ok) bad++;
      lines.push(`  ${ok ? 'PASS' : c.status.padEnd(4)}  ${dir.replace(/-\d{4}-\d\d-\d\dT.*$/, '')}: ${c.id}${ok ? '' : ` ${c.errorMessage ?? ''}`}`);
    }
  }
}
console.log(lines.join('\n'));
if (!approved) {
  console.log(`  FAIL  the suite never printed an authorization URL of ${issuer} (log: ${join(opts.out, 'suite.log')})`);
  bad++;
}
if (seen === 0) {
  console.log(`  FAIL  no results were written (log: ${join(opts.out, 'suite.log')})`);
  bad++;
}
console.log(`conformance authorization: ${seen - bad < 0 ? 0 : seen} checks, ${bad} not SUCCESS, suite exit ${code}`);
process.exit(bad === 0 && code === 0 ? 0 : 1);
