// Browser test of cookie tossing (interface.md 13.5) in headless Chromium.
//
//   node tests/browser/cookie_tossing.test.mjs <path to authd>
//
// An attacker who controls a sibling host of authd's (evil.example.test
// beside auth.example.test) logs in to authd as themself, then has their
// page set a cookie of authd's cookie name with their own token for the
// whole site (`Domain=example.test`). A logged-out victim who visits that
// page would then send it to authd and act as the attacker (login CSRF:
// whatever the victim types or stores goes into the attacker's account).
//
// Chromium resolves *.example.test to 127.0.0.1 (--host-resolver-rules), and
// authd and the attacker's site both speak HTTPS with a certificate made
// here (which Chromium is told to accept). The same attack runs twice: with
// a plain name the tossed cookie reaches authd and the victim is the
// attacker, which is the threat; with a `__Host-` name (what the docs
// recommend) Chromium refuses the tossed cookie, the victim stays logged
// out, and the victim's own login still works. A third run shows that a
// `__Host-` name works on a loopback http:// public URL too, where authd
// keeps `Secure` for it (Chromium counts http://127.0.0.1 as secure).
// Exit status 0 on success.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';

import {
  freePort, launchBrowser, log, logOf, portFrom, runAuthd, runTest, startProcess, workDir,
  FAST_HASHING
} from './support.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);
const VICTIM = 'victim@example.com';
const ATTACKER = 'mallory@example.com';
const PASSWORD = 'correct horse battery staple';
const RESOLVE_EXAMPLE_TEST = ['--host-resolver-rules=MAP *.example.test 127.0.0.1'];

// A certificate for both host names, made with Debian's openssl.
function makeCertificate() {
  const cert = path.join(workDir, 'cert.pem');
  const key = path.join(workDir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt',
    'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', '/CN=auth.example.test',
    '-addext', 'subjectAltName=DNS:auth.example.test,DNS:evil.example.test'], { stdio: 'ignore' });
  return { cert, key };
}

// `authd serve` on a fresh database with cookie sessions named `name`, at
// `publicUrl` (https:// with `tls`), with the victim's and the attacker's
// accounts.
async function startAuthd(run, name, scheme, tls) {
  const port = await freePort();
  const host = scheme === 'https' ? 'auth.example.test' : '127.0.0.1';
  const base = `${scheme}://${host}:${port}`;
  const portFile = path.join(workDir, `${run}.port`);
  const database = `sqlite:${path.join(workDir, `${run}.db`)}`;
  const tlsArgs = tls ? ['--tls-cert', tls.cert, '--tls-key', tls.key] : [];
  const authd = startProcess(run, AUTHD, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', portFile, '--database', database, '--mail-dir', path.join(workDir, `${run}-mail`),
    '--public-url', base, '--session-cookie', name, ...tlsArgs, ...FAST_HASHING
  ]);
  assert.equal(await portFrom(authd, portFile), port);
  for (const email of [VICTIM, ATTACKER]) {
    const added = await runAuthd(AUTHD, ['user', 'add', '--email', email, '--database', database,
      ...FAST_HASHING], PASSWORD);
    assert.equal(added.code, 0, `user add failed: ${added.output}`);
  }
  return { authd, base, port };
}

// The attacker's own token: a login of theirs, outside the victim's browser.
function attackerToken(port) {
  const body = JSON.stringify({ email: ATTACKER, password: PASSWORD });
  return new Promise((resolve, reject) => {
    const request = https.request({
      host: '127.0.0.1', port, path: '/login', method: 'POST', servername: 'auth.example.test',
      rejectUnauthorized: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }
    }, (response) => {
      response.resume();
      const value = response.headers.authorization ?? '';
      if (response.statusCode !== 200 || !value.startsWith('Bearer ')) {
        reject(new Error(`attacker login: ${response.statusCode}`));
      } else {
        resolve(value.slice('Bearer '.length));
      }
    });
    request.on('error', reject);
    request.end(body);
  });
}

// The attacker's site on evil.example.test: /toss sets `name=token` for the
// whole site, by a header and again from the page's script.
function startEvilSite(tls, name, token) {
  const cookie = `${name}=${token}; Domain=example.test; Path=/; Secure; SameSite=Lax`;
  const server = https.createServer({
    cert: fs.readFileSync(tls.cert), key: fs.readFileSync(tls.key)
  }, (request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Set-Cookie': cookie });
    response.end(`<!doctype html><title>evil</title><p id="status">evil</p>
      <script>document.cookie = ${JSON.stringify(cookie)};</script>`);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      server, origin: `https://evil.example.test:${server.address().port}`
    }));
  });
}

// GET /me as a top-level navigation of the victim's browser: its status,
// and the e-mail it names.
async function whoAmI(page, base) {
  const response = await page.goto(`${base}/me`);
  const status = response.status();
  const email = status === 200 ? (await response.json()).email : null;
  return { status, email };
}

// The victim's own login, from a page of authd's origin.
async function victimLogin(page, base) {
  await page.goto(`${base}/healthz`);
  return page.evaluate(async ({ email, password }) => {
    const response = await fetch('/login', {
      method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password })
    });
    return response.status;
  }, { email: VICTIM, password: PASSWORD });
}

// The attack on a logged-out victim, against authd with cookie name
// `name`: who the victim is to authd once the attacker's page has run.
async function tossAgainst(tls, name, run) {
  const { authd, base, port } = await startAuthd(run, name, 'https', tls);
  const evil = await startEvilSite(tls, name, await attackerToken(port));
  try {
    const context = await launchBrowser(RESOLVE_EXAMPLE_TEST, { ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(`${evil.origin}/toss`);
    const victim = await whoAmI(page, base);
    await context.close();
    return { authd, victim };
  } finally {
    evil.server.close();
  }
}

async function main() {
  assert.ok(AUTHD, 'usage: node cookie_tossing.test.mjs <path to authd>');
  const tls = makeCertificate();

  // 1. A plain name: the tossed cookie reaches authd; the logged-out
  //    victim is the attacker. authd warned about the name at start.
  const plain = await tossAgainst(tls, 'authd_session', 'plain');
  assert.deepEqual(plain.victim, { status: 200, email: ATTACKER }, 'the threat, without the prefix');
  assert.match(logOf(plain.authd), /session_cookie_without_host_prefix/);

  // 2. A __Host- name: Chromium refuses the tossed cookie (it has a
  //    Domain); the victim stays logged out, and then logs in as themself.
  const name = '__Host-authd_session';
  const { authd, base, port } = await startAuthd('prefixed', name, 'https', tls);
  const evil = await startEvilSite(tls, name, await attackerToken(port));
  try {
    const context = await launchBrowser(RESOLVE_EXAMPLE_TEST, { ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(`${evil.origin}/toss`);
    assert.deepEqual(await whoAmI(page, base), { status: 401, email: null },
      'a tossed __Host- cookie is never sent');
    assert.deepEqual((await context.cookies(base)).filter((c) => c.name === name), []);
    assert.equal(await victimLogin(page, base), 200);
    const own = (await context.cookies(base)).filter((c) => c.name === name);
    assert.equal(own.length, 1, JSON.stringify(own));
    assert.equal(own[0].secure, true);
    assert.equal(own[0].domain, 'auth.example.test', 'host-only');
    assert.deepEqual(await whoAmI(page, base), { status: 200, email: VICTIM });
    // Tossed again while logged in: still refused, the victim stays themself.
    await page.goto(`${evil.origin}/toss`);
    assert.deepEqual(await whoAmI(page, base), { status: 200, email: VICTIM });
    assert.doesNotMatch(logOf(authd), /session_cookie_without_host_prefix/);
    await context.close();
  } finally {
    evil.server.close();
  }

  // 3. A __Host- name on a loopback http:// public URL: authd keeps Secure
  //    for it, and Chromium keeps the cookie (http://127.0.0.1 is secure).
  const loopback = await startAuthd('loopback', name, 'http', null);
  const context = await launchBrowser();
  const page = await context.newPage();
  assert.equal(await victimLogin(page, loopback.base), 200);
  const kept = (await context.cookies(loopback.base)).filter((c) => c.name === name);
  assert.equal(kept.length, 1, `a __Host- cookie from loopback http: ${JSON.stringify(kept)}`);
  assert.deepEqual(await whoAmI(page, loopback.base), { status: 200, email: VICTIM });
  log('cookie tossing: plain name tossed, __Host- name refused the tossed cookie');
}

runTest('cookie_tossing', main);
