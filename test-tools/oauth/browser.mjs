// The person in front of the browser, for OAuth tests against a server in
// LEDGER_AUTH=required mode: opens an authorization URL, signs in on the
// board when it asks, approves on the approval page (keeping the agent
// name it suggests unless one is given), and returns the URL the board
// sends the browser back to (the client's redirect URI with code, state
// and iss). It does not follow that last redirect: the caller decides.
import assert from 'node:assert/strict';

const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (s) =>
  s.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : entities[e] ?? m);

function sessionCookie(res) {
  for (const c of res.headers.getSetCookie()) {
    if (c.startsWith('__Host-session=')) return c.split(';')[0];
  }
  return '';
}

export async function approve(authorizationUrl, { handle, password, agent } = {}) {
  const start = new URL(authorizationUrl);
  const origin = start.origin;
  const form = (fields) => ({ 'content-type': 'application/x-www-form-urlencoded', ...fields });
  let cookie = '';
  let res = await fetch(start, { redirect: 'manual' });
  if (res.status === 303 && res.headers.get('location').startsWith('/signin')) {
    const next = new URL(res.headers.get('location'), origin).searchParams.get('next');
    res = await fetch(`${origin}/signin`, {
      method: 'POST', redirect: 'manual', headers: form({}),
      body: new URLSearchParams({ handle, password, next }),
    });
    assert.equal(res.status, 303, `sign-in answered ${res.status}: ${await res.text()}`);
    cookie = sessionCookie(res);
    assert.ok(cookie, 'sign-in set no session cookie');
    res = await fetch(new URL(res.headers.get('location'), origin), { redirect: 'manual', headers: { cookie } });
  }
  const page = await res.text();
  assert.equal(res.status, 200, `the approval page answered ${res.status}: ${page}`);
  const fields = new URLSearchParams();
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.append(unescape(m[1]), unescape(m[2]));
  }
  const suggested = page.match(/name="agent_name"[^>]* value="([^"]*)"/);
  fields.set('agent_name', agent ?? (suggested ? unescape(suggested[1]) : 'agent'));
  fields.set('decision', 'allow');
  res = await fetch(`${origin}${start.pathname}`, { method: 'POST', redirect: 'manual', headers: form({ cookie }), body: fields });
  assert.equal(res.status, 303, `approving answered ${res.status}: ${await res.text()}`);
  return new URL(res.headers.get('location'));
}
