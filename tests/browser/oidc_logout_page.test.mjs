// Browser test of the OpenID provider's sign-out confirmation (interface.md
// 17.13, RP-initiated logout) in headless Chromium (Debian's, driven by
// playwright-core):
//
//   node tests/browser/oidc_logout_page.test.mjs <path to authd>
//
// Starts authd with --oidc on (the session cookie authd_session on a
// loopback http:// public URL), on SQLite or, with AUTHD_TEST_POSTGRES,
// PostgreSQL, and a tiny relying party on another loopback port. The
// confirmation page without a hint: shown with no script and no CSP
// report, its #sign-out button ends the session on "You are signed out"
// and the cookie goes. With the hint of an ended session and a registered
// post_logout_redirect_uri: the button's POST is answered with a redirect
// to the relying party, which Chromium follows under the page's
// form-action (a CSP that did not allow it would block the navigation).
// Screenshots go to test-artifacts/. Exit status 0 on success.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import {
  freePort, launchBrowser, log, portFrom, runAuthd, runTest, shot, startProcess, workDir, FAST_HASHING
} from './support.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);
const EMAIL = 'alice@example.com';
const PASSWORD = 'correct horse battery staple';
const COOKIE = 'authd_session';  // interface.md 17.2: --oidc on, loopback http://

async function clause(name, check) {
  try {
    await check();
  } catch (error) {
    error.message = `${name}: ${error.message}`;
    throw error;
  }
  log('ok -', name);
}

// A fresh database: the SQLite file, or a new database on AUTHD_TEST_POSTGRES
// and a --secret-key-file (interface.md 17.2: --oidc on needs one there).
function freshDatabase(name) {
  const server = process.env.AUTHD_TEST_POSTGRES;
  if (!server) return { url: `sqlite:${path.join(workDir, `${name}.db`)}`, args: [] };
  const database = `authdtest_logout_${name}_${process.pid}_${Date.now()}`;
  execFileSync('/usr/bin/psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`,
    '-c', `CREATE DATABASE ${database}`], { stdio: 'pipe' });
  const keyFile = path.join(workDir, `${name}.key`);
  fs.writeFileSync(keyFile, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return { url: `${server}/${database}`, args: ['--secret-key-file', keyFile] };
}

async function startOidcAuthd() {
  const database = freshDatabase('authd');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const portFile = path.join(workDir, 'authd.port');
  const authd = startProcess('authd', AUTHD, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', portFile, '--database', database.url, '--mail-dir', path.join(workDir, 'mail'),
    '--public-url', base, '--oidc', 'on', ...database.args, ...FAST_HASHING
  ]);
  assert.equal(await portFrom(authd, portFile), port);
  const added = await runAuthd(AUTHD, ['user', 'add', '--email', EMAIL, '--database', database.url,
    ...FAST_HASHING], PASSWORD);
  assert.equal(added.code, 0, `user add failed: ${added.output}`);
  log('authd on', base, process.env.AUTHD_TEST_POSTGRES ? 'PostgreSQL' : 'SQLite');
  return { base, database };
}

// The relying party: answers every path with a page.
async function startRelyingParty() {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>app</title><p id="app">Back at the application.</p>');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

async function registerClient(database, redirectUri, postLogoutUri) {
  const made = await runAuthd(AUTHD, ['client', 'create', '--name', 'Logout <App>', '--type', 'confidential',
    '--redirect-uri', redirectUri, '--post-logout-redirect-uri', postLogoutUri, '--first-party', 'true',
    '--database', database.url], '');
  assert.equal(made.code, 0, `client create failed: ${made.output}`);
  // The client as indented JSON, the secret in it.
  return JSON.parse(made.output.slice(made.output.indexOf('{\n'), made.output.lastIndexOf('}') + 1));
}

// A session in the browser's cookie jar (POST /login from the context).
async function signInContext(context, base) {
  const login = await context.request.post(`${base}/login`, { data: { email: EMAIL, password: PASSWORD } });
  assert.equal(login.status(), 200);
  const cookie = (await context.cookies(base)).find((c) => c.name === COOKIE);
  assert.ok(cookie, 'the session cookie');
  return cookie.value;
}

// An ID token for the session `token` (the code flow, with PKCE).
async function idTokenFor(base, client, redirectUri, token) {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code', client_id: client.clientId, redirect_uri: redirectUri, scope: 'openid',
    state: 's', code_challenge: challenge, code_challenge_method: 'S256'
  });
  const authorized = await fetch(`${base}/oauth2/authorize?${query}`,
    { redirect: 'manual', headers: { Cookie: `${COOKIE}=${token}` } });
  const code = new URL(authorized.headers.get('location')).searchParams.get('code');
  assert.ok(code, `no code: ${authorized.headers.get('location')}`);
  const exchanged = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })
  });
  assert.equal(exchanged.status, 200);
  return (await exchanged.json()).id_token;
}

async function isLive(base, token) {
  return (await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${token}` } })).status === 200;
}

// A page that records CSP reports and script errors.
async function watchedPage(context) {
  const page = await context.newPage();
  page.cspViolations = [];
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Trusted Type/i.test(text) && !/favicon/i.test(text)) page.cspViolations.push(text);
  });
  page.on('pageerror', (error) => page.cspViolations.push(`page error: ${error.message}`));
  return page;
}

async function main() {
  assert.ok(AUTHD, 'usage: node oidc_logout_page.test.mjs <path to authd>');
  const { base, database } = await startOidcAuthd();
  const app = await startRelyingParty();
  const redirectUri = `${app.base}/callback`;
  const signedOutUri = `${app.base}/signed-out`;
  const client = await registerClient(database, redirectUri, signedOutUri);
  const context = await launchBrowser();
  try {
    await clause('Interface 17.13: without a hint, the confirmation signs the browser out on authd\'s page', async () => {
      const token = await signInContext(context, base);
      const page = await watchedPage(context);
      const served = await page.goto(`${base}/oauth2/logout`);
      assert.equal(served.status(), 200);
      assert.match(served.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      await page.locator('#logout').waitFor({ state: 'visible' });
      assert.equal(await page.locator('script').count(), 0);
      await shot(page, 'oidc-logout-confirmation.png');
      assert.ok(await isLive(base, token), 'nothing ends before the click');
      await page.locator('#sign-out').click();
      await page.locator('#heading', { hasText: 'You are signed out' }).waitFor({ timeout: 15_000 });
      await shot(page, 'oidc-logout-signed-out.png');
      assert.equal(await isLive(base, token), false);
      assert.equal((await context.cookies(base)).find((c) => c.name === COOKIE), undefined, 'the cookie is cleared');
      assert.deepEqual(page.cspViolations, [], 'no Content-Security-Policy report');
      await page.close();
    });

    await clause('Interface 17.13: the hint of an ended session asks, then the form\'s answer redirects to the registered URI', async () => {
      const first = await signInContext(context, base);
      const hint = await idTokenFor(base, client, redirectUri, first);
      const ended = await fetch(`${base}/logout`, { method: 'POST', headers: { Authorization: `Bearer ${first}` } });
      assert.equal(ended.status, 200);
      const token = await signInContext(context, base);
      const page = await watchedPage(context);
      const query = new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: signedOutUri, state: 'st 1' });
      await page.goto(`${base}/oauth2/logout?${query}`);
      await page.locator('#logout').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#client-name').textContent(), 'Logout <App>');
      await page.locator('#sign-out').click();
      await page.waitForURL((url) => url.href.startsWith(signedOutUri), { timeout: 15_000 });
      assert.equal(new URL(page.url()).searchParams.get('state'), 'st 1');
      assert.equal(await page.locator('#app').count(), 1);
      assert.equal(await isLive(base, token), false);
      assert.deepEqual(page.cspViolations, [], 'no Content-Security-Policy report');
      await page.close();
    });
  } finally {
    app.close();
  }
}

runTest('oidc_logout_page', main);
