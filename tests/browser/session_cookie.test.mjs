// Browser test of cookie sessions (interface.md 13.5) in headless Chromium.
//
//   node tests/browser/session_cookie.test.mjs <path to authd>
//
// authd runs with --session-cookie and its own address as public URL
// (http://127.0.0.1:<port>: a loopback http URL, so the cookie has no
// Secure). Two small sites on other ports of 127.0.0.1 serve one page each:
// the allowed one (--cors-origins) and a foreign one. Both are same-site
// with authd (a site ignores the port), so SameSite=Lax lets the browser
// send the cookie from either: what stops the foreign page is the Origin
// check of 13.5. From the allowed page: login sets an HttpOnly cookie the
// page cannot read, /me answers with the cookie alone, and POST /logout
// ends the session and clears the cookie. From the foreign page: a fetch
// and a form POST to /logout, both carrying the cookie, get 403 and the
// session stays live. Exit status 0 on success.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';

import {
  launchBrowser, log, logOf, runAuthd, runTest, startAuthd, waitFor, FAST_HASHING
} from './support.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);
const EMAIL = 'alice@example.com';
const PASSWORD = 'correct horse battery staple';
const COOKIE = 'authd_session';

// A site on 127.0.0.1 serving one empty page at every path.
function startSite(name) {
  return new Promise((resolve, reject) => {
    const server = http.createServer((request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>${name}</title><p id="status">${name}</p>`);
    });
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, origin: `http://127.0.0.1:${server.address().port}` });
    });
  });
}

// fetch() in the page, with the browser's cookies; the status (0 when the
// page may not read the answer).
async function fetchFrom(page, url, method) {
  return page.evaluate(async ({ url, method }) => {
    const init = { method, credentials: 'include' };
    if (method === 'LOGIN') {
      init.method = 'POST';
      init.headers = { 'Content-Type': 'application/json' };
      init.body = JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' });
    }
    try {
      const response = await fetch(url, init);
      const text = await response.text();
      return { status: response.status, text };
    } catch (error) {
      return { status: 0, text: String(error) };
    }
  }, { url, method });
}

// The request lines authd logged for /logout, by status.
function logoutStatuses(authdLog) {
  return authdLog.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))
    .filter((entry) => entry.event === 'request' && entry.route === '/logout').map((entry) => entry.status);
}

async function main() {
  assert.ok(AUTHD, 'usage: node session_cookie.test.mjs <path to authd>');
  const allowed = await startSite('allowed');
  const foreign = await startSite('foreign');
  try {
    const { authd, base, database } = await startAuthd(AUTHD, [
      '--session-cookie', COOKIE, '--cors-origins', allowed.origin]);
    const added = await runAuthd(AUTHD, ['user', 'add', '--email', EMAIL, '--database', database, ...FAST_HASHING], PASSWORD);
    assert.equal(added.code, 0, `user add failed: ${added.output}`);
    const context = await launchBrowser();

    // 1. The allowed page logs in: the cookie is set, HttpOnly, no Secure
    //    (loopback http), SameSite=Lax, and the page cannot read it.
    const page = await context.newPage();
    await page.goto(`${allowed.origin}/app`);
    const login = await fetchFrom(page, `${base}/login`, 'LOGIN');
    assert.equal(login.status, 200, `login from the allowed origin: ${login.text}`);
    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === COOKIE);
    assert.ok(session, `no ${COOKIE} cookie: ${JSON.stringify(cookies)}`);
    assert.equal(session.httpOnly, true);
    assert.equal(session.secure, false);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.path, '/');
    assert.ok(session.expires > Date.now() / 1000 + 3600, 'Max-Age: the session lifetime');
    assert.equal(await page.evaluate(() => document.cookie), '');

    // 2. /me with the cookie alone.
    const me = await fetchFrom(page, `${base}/me`, 'GET');
    assert.equal(me.status, 200, me.text);
    assert.equal(JSON.parse(me.text).email, EMAIL);

    // 3. The foreign page: the cookie goes along (same site), the Origin
    //    does not pass. A fetch (whose answer it may not read) and a form.
    const evil = await context.newPage();
    await evil.goto(`${foreign.origin}/attack`);
    const attempt = await fetchFrom(evil, `${base}/logout`, 'POST');
    assert.equal(attempt.status, 0, 'the foreign page may not read the answer');
    await evil.evaluate((action) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = action;
      document.body.appendChild(form);
      form.submit();
    }, `${base}/logout`);
    await evil.waitForURL(`${base}/logout`);
    assert.match(await evil.content(), /"code":\s*403/);
    await waitFor('two refused logouts in the log', () => logoutStatuses(logOf(authd)).length >= 2);
    assert.deepEqual(logoutStatuses(logOf(authd)), [403, 403]);
    assert.ok((await context.cookies(base)).some((c) => c.name === COOKIE), 'a 403 clears nothing');
    assert.equal((await fetchFrom(page, `${base}/me`, 'GET')).status, 200, 'the session is live');

    // 4. The allowed page logs out: the session ends, the cookie is gone.
    const logout = await fetchFrom(page, `${base}/logout`, 'POST');
    assert.equal(logout.status, 200, logout.text);
    assert.ok(!(await context.cookies(base)).some((c) => c.name === COOKIE), 'logout clears the cookie');
    assert.equal((await fetchFrom(page, `${base}/me`, 'GET')).status, 401);
    log('cookie sessions: allowed origin served, foreign origin refused');
  } finally {
    allowed.server.close();
    foreign.server.close();
  }
}

runTest('session_cookie', main);
