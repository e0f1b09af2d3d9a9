// Browser test of the OpenID provider's sign-in page (interface.md 17.5) on
// its own: the page a waiting authorization request sends the browser to.
//
//   node tests/browser/oidc_signin_page.test.mjs <path to authd>
//
// Starts authd with --oidc on (which turns the session cookie of 13.5 on,
// named authd_session for a loopback http:// public URL), on SQLite or, with
// AUTHD_TEST_POSTGRES, PostgreSQL, and drives headless Chromium (Debian's,
// driven by playwright-core) through /signin?request=...: its headers;
// login_hint prefilling the e-mail field as a value, never as markup; a
// wrong password refused in the same words as an unknown address; a
// password sign-in that sets the session cookie and navigates to
// oauth2/authorize/resume?request=<the same id> (asserted on the URL: what
// that route answers is another test's); an account with TOTP asked for its
// code (a wrong one refused, the right one signs in); the forgotten-password
// form, which says the same for every address; the page opened without a
// request id. Then a second authd over HTTPS on auth.example.test (WebAuthn
// needs a domain) with Chromium's virtual authenticator: a passkey signs in
// alone, and as the second factor of a password. Every request the page
// makes goes to authd's own origin, and no Content-Security-Policy report
// or script error is raised. Screenshots go to test-artifacts/. Exit
// status 0 on success.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import {
  freePort, launchBrowser, log, portFrom, runAuthd, runTest, shot, startProcess, waitFor,
  waitForStatus, workDir, FAST_HASHING
} from './support.mjs';
import { codeAfter, currentStep, totp } from '../support/totp.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);

const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';  // with a TOTP
const NOBODY = 'nobody@example.com';  // no account
const PASSWORD = 'correct horse battery staple';
const CAROL = 'carol@example.com';  // with a passkey
const COOKIE = 'authd_session';  // interface.md 17.2: --oidc on, loopback http://
const HTTPS_COOKIE = '__Host-authd_session';  // the same, https://
const HTTPS_HOST = 'auth.example.test';  // mapped to 127.0.0.1 by Chromium
const REQUEST = 'authdar_test-request-id';

// The page's messages (src/web/signin.js), as the user reads them.
const BAD_LOGIN_TEXT = /e-mail address or the password is wrong/i;
const RESET_SENT_TEXT = /if this address has an account, a mail with a link/i;
const NO_REQUEST_TEXT = /go back to the application and try again/i;
const SECOND_FACTOR_REFUSED_TEXT = /that code was not accepted/i;

async function clause(name, check) {
  try {
    await check();
  } catch (error) {
    error.message = `${name}: ${error.message}`;
    throw error;
  }
  log('ok -', name);
}

async function postJson(base, route, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${base}/${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

// Gives `email` a confirmed TOTP factor (12.1); returns its secret and the
// step whose code confirmed it (no code of that step or earlier is accepted
// again: 12.3.4).
async function enrolTotp(base, email) {
  const login = await postJson(base, 'login', { email, password: PASSWORD });
  assert.equal(login.status, 200);
  const token = /^Bearer (\S+)$/.exec(login.headers.get('authorization') ?? '')?.[1];
  assert.ok(token, 'a session token');
  const enrolled = await postJson(base, 'mfa/totp', { password: PASSWORD }, token);
  assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
  const step = currentStep();
  const confirmed = await postJson(base, 'mfa/totp/confirm', { code: totp(enrolled.body.secret, step) }, token);
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return { secret: enrolled.body.secret, step };
}

// ---------------------------------------------------------------------------
// authd with --oidc on, on SQLite or PostgreSQL (AUTHD_TEST_POSTGRES).

// A fresh database: the SQLite file, or a new database on AUTHD_TEST_POSTGRES
// and a --secret-key-file (interface.md 17.2: --oidc on needs one there).
function freshDatabase(name) {
  const server = process.env.AUTHD_TEST_POSTGRES;
  if (!server) return { url: `sqlite:${path.join(workDir, `${name}.db`)}`, args: [] };
  const database = `authdtest_oidc_${name}_${process.pid}_${Date.now()}`;
  execFileSync('/usr/bin/psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`,
    '-c', `CREATE DATABASE ${database}`], { stdio: 'pipe' });
  const keyFile = path.join(workDir, `${name}.key`);
  fs.writeFileSync(keyFile, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return { url: `${server}/${database}`, args: ['--secret-key-file', keyFile] };
}

// A self-signed certificate for HTTPS_HOST, and its SPKI digest for
// Chromium's --ignore-certificate-errors-spki-list: a page whose certificate
// is in error may not use WebAuthn, one on that list may.
function makeCertificate() {
  const cert = path.join(workDir, 'cert.pem');
  const key = path.join(workDir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt',
    'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', `/CN=${HTTPS_HOST}`, '-addext', `subjectAltName=DNS:${HTTPS_HOST}`], { stdio: 'ignore' });
  const spki = crypto.createPublicKey(fs.readFileSync(cert)).export({ type: 'spki', format: 'der' });
  return { cert, key, spki: crypto.createHash('sha256').update(spki).digest('base64') };
}

// `authd serve --oidc on` on http://127.0.0.1:<port>, or with `tls` on
// https://auth.example.test:<port>; the users added with PASSWORD.
async function startOidcAuthd(name, users, tls) {
  const database = freshDatabase(name);
  const port = await freePort();
  const base = tls ? `https://${HTTPS_HOST}:${port}` : `http://127.0.0.1:${port}`;
  const portFile = path.join(workDir, `${name}.port`);
  const tlsArgs = tls ? ['--tls-cert', tls.cert, '--tls-key', tls.key] : [];
  const authd = startProcess(name, AUTHD, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', portFile, '--database', database.url, '--mail-dir', path.join(workDir, `${name}-mail`),
    '--public-url', base, '--oidc', 'on', ...tlsArgs, ...database.args, ...FAST_HASHING
  ]);
  assert.equal(await portFrom(authd, portFile), port);
  for (const email of users) {
    const added = await runAuthd(AUTHD, ['user', 'add', '--email', email, '--database', database.url,
      ...FAST_HASHING], PASSWORD);
    assert.equal(added.code, 0, `user add failed: ${added.output}`);
  }
  log('authd on', base, process.env.AUTHD_TEST_POSTGRES ? 'PostgreSQL' : 'SQLite');
  return { authd, base };
}

// ---------------------------------------------------------------------------

// A new page, the browser's cookies cleared first, that records every
// request and CSP reports.
async function openSignin(context, base, search) {
  await context.clearCookies();
  const page = await context.newPage();
  page.requests = [];
  page.cspViolations = [];
  page.on('request', (request) => page.requests.push({ method: request.method(), url: request.url() }));
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Trusted Type/i.test(text) && !/favicon/i.test(text)) page.cspViolations.push(text);
  });
  page.on('pageerror', (error) => page.cspViolations.push(`page error: ${error.message}`));
  const served = await page.goto(`${base}/signin${search}`);
  return { context, page, served };
}

function posts(page, route) {
  return page.requests.filter((r) => r.method === 'POST' && new URL(r.url).pathname === `/${route}`).length;
}

// Nothing left the origin, and the CSP was never broken.
function assertSameOriginOnly(page, base) {
  const origin = new URL(base).origin;
  const foreign = page.requests.filter((r) => new URL(r.url).origin !== origin);
  assert.deepEqual(foreign, [], 'every request goes to authd\'s own origin');
  assert.deepEqual(page.cspViolations, [], 'no Content-Security-Policy report');
}

const resumeUrl = (base, id) => `${base}/oauth2/authorize/resume?request=${encodeURIComponent(id)}`;

async function main() {
  assert.ok(AUTHD, 'usage: node oidc_signin_page.test.mjs <path to authd>');
  const { base } = await startOidcAuthd('authd', [ALICE, BOB]);
  const context = await launchBrowser();

  await clause('Interface 17.5: the page is served with a strict CSP, no framing, no referrer, no caching', async () => {
    const { page, served } = await openSignin(context, base, `?request=${REQUEST}`);
    assert.equal(served.status(), 200);
    const headers = served.headers();
    assert.equal(headers['content-type'], 'text/html; charset=utf-8');
    const csp = headers['content-security-policy'] ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'",
      "connect-src 'self'", "img-src 'self'", "form-action 'self'", "frame-ancestors 'none'"]) {
      assert.ok(csp.includes(directive), `${directive} in ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(headers['x-frame-options'], 'DENY');
    assert.equal(headers['referrer-policy'], 'no-referrer');
    assert.equal(headers['cache-control'], 'no-store');
    await page.locator('#signin').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate(() => document.activeElement.id), 'email');
    assert.equal(await page.locator('#signup').count(), 0, 'no sign-up link while sign-up is closed');
    const loaded = page.requests.map((r) => new URL(r.url).pathname);
    assert.ok(loaded.includes('/reset.css') && loaded.includes('/signin.js'), `loaded: ${loaded}`);
    assert.ok(loaded.includes('/common.js'), `the shared script: ${loaded}`);
    assert.equal(page.requests.filter((r) => r.method !== 'GET').length, 0, 'opening the page sends nothing');
    assertSameOriginOnly(page, base);
    await shot(page, 'oidc-signin-page.png');
  });

  await clause('Interface 17.4, 17.5: login_hint prefills the e-mail field as its value, never as markup', async () => {
    const hint = '<img src=x id=injected>@example.com';
    const { page } = await openSignin(context, base, `?request=${REQUEST}&login_hint=${encodeURIComponent(hint)}`);
    await page.locator('#signin').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#email').inputValue(), hint);
    assert.equal(await page.locator('#injected').count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'password', 'the hint given, the password is next');
  });

  await clause('Interface 17.5: a wrong password and an unknown address get the same words; nothing is navigated', async () => {
    const { page } = await openSignin(context, base, `?request=${REQUEST}&login_hint=${ALICE}`);
    await page.locator('#password').fill('not the password');
    await page.locator('#signin-submit').click();
    const wrong = await waitForStatus(page, BAD_LOGIN_TEXT);
    await page.locator('#email').fill(NOBODY);
    await page.locator('#password').fill(PASSWORD);
    await page.locator('#signin-submit').click();
    await page.locator('#status').filter({ hasText: BAD_LOGIN_TEXT }).waitFor();
    // Same text again: wait for the second answer, then compare.
    await page.waitForFunction(() => !document.querySelector('main').getAttribute('aria-busy')?.includes('true'));
    assert.equal(await page.locator('#status').textContent(), wrong);
    assert.equal(posts(page, 'login'), 2);
    assert.equal(new URL(page.url()).pathname, '/signin');
    assert.equal(await page.locator('#password').getAttribute('aria-invalid'), 'true');
  });

  await clause('Interface 17.5, 13.5: a password sign-in sets the session cookie and goes to oauth2/authorize/resume with the same request id', async () => {
    const { page } = await openSignin(context, base, `?request=${REQUEST}&login_hint=${ALICE}`);
    await page.locator('#password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(resumeUrl(base, REQUEST)),
      page.locator('#signin-submit').click()
    ]);
    assert.equal(page.url(), resumeUrl(base, REQUEST));
    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === COOKIE);
    assert.ok(session, `the session cookie: ${JSON.stringify(cookies.map((c) => c.name))}`);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    const me = await fetch(`${base}/me`, { headers: { Cookie: `${COOKIE}=${session.value}` } });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).email, ALICE);
    assert.equal(posts(page, 'login'), 1);
    assertSameOriginOnly(page, base);
  });

  await clause('Interface 17.5, 12.3: an account with TOTP is asked for its code; a wrong one is refused, the right one signs in', async () => {
    const { secret, step } = await enrolTotp(base, BOB);
    const id = 'authdar_second factor & more';
    const { page } = await openSignin(context, base, `?request=${encodeURIComponent(id)}`);
    await page.locator('#email').fill(BOB);
    await page.locator('#password').fill(PASSWORD);
    await page.locator('#signin-submit').click();
    await page.locator('#second-factor').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#signin').isVisible(), false);
    assert.match(await page.locator('#second-factor-intro').textContent(), /authenticator app/);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'code');
    await shot(page, 'oidc-signin-page-second-factor.png');
    const near = new Set([-1, 0, 1, 2].map((d) => totp(secret, step + d)));
    let wrong = '000000';
    while (near.has(wrong)) wrong = String(Number(wrong) + 1).padStart(6, '0');
    await page.locator('#code').fill(wrong);
    await page.locator('#code-submit').click();
    log('wrong TOTP code:', await waitForStatus(page, SECOND_FACTOR_REFUSED_TEXT));
    assert.equal(await page.locator('#second-factor').isVisible(), true);
    assert.equal((await context.cookies(base)).some((c) => c.name === COOKIE), false, 'no session yet');
    await page.locator('#code').fill(codeAfter(secret, step));
    await Promise.all([
      page.waitForURL(resumeUrl(base, id)),
      page.locator('#code-submit').click()
    ]);
    assert.equal(page.url(), resumeUrl(base, id), 'the id is sent back as it was, escaped');
    assert.ok((await context.cookies(base)).some((c) => c.name === COOKIE), 'the session cookie');
    assert.equal(posts(page, 'login'), 3);
    assertSameOriginOnly(page, base);
  });

  await clause('Interface 17.5, 6 /forgot: the forgotten-password form says the same for every address', async () => {
    const { page } = await openSignin(context, base, `?request=${REQUEST}`);
    const answers = [];
    for (const address of [ALICE, NOBODY]) {
      await page.locator('#forgot').click();
      await page.locator('#forgot-form').waitFor({ state: 'visible' });
      if (answers.length === 0) await shot(page, 'oidc-signin-page-forgot.png');
      await page.locator('#forgot-email').fill(address);
      await page.locator('#forgot-submit').click();
      answers.push(await waitForStatus(page, RESET_SENT_TEXT));
      assert.equal(await page.locator('#signin').isVisible(), true, 'back to the sign-in form');
      assert.equal(await page.locator('#email').inputValue(), address);
    }
    assert.equal(answers[0], answers[1]);
    assert.equal(posts(page, 'forgot'), 2);
    assert.equal(new URL(page.url()).pathname, '/signin');
    assertSameOriginOnly(page, base);
  });

  await clause('Interface 17.5: without a request id the page offers no sign-in and says to go back', async () => {
    const { page } = await openSignin(context, base, '');
    log('no request:', await waitForStatus(page, NO_REQUEST_TEXT));
    assert.equal(await page.locator('#signin').isVisible(), false);
    assert.equal(await page.locator('#passkey').isVisible(), false);
    await shot(page, 'oidc-signin-page-no-request.png');
  });

  await passkeyClauses();
}

// Passkeys need a secure context and a domain for the RP ID, and --oidc on
// an https:// or loopback-IP public URL: a second authd over HTTPS on
// auth.example.test, with Chromium's virtual authenticator. The passkey is
// added on the passkeys page (16.8) of the same origin.
async function passkeyClauses() {
  const tls = makeCertificate();
  const { base } = await startOidcAuthd('authd_https', [CAROL], tls);
  const context = await launchBrowser([`--host-resolver-rules=MAP *.example.test 127.0.0.1`,
    `--ignore-certificate-errors-spki-list=${tls.spki}`]);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true,
      isUserVerified: true, automaticPresenceSimulation: true
    }
  });
  page.requests = [];
  page.cspViolations = [];
  page.on('request', (request) => page.requests.push({ method: request.method(), url: request.url() }));
  page.on('pageerror', (error) => page.cspViolations.push(`page error: ${error.message}`));

  await page.goto(`${base}/passkeys`);
  await page.locator('#email').fill(CAROL);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('#password-submit').click();
  await page.locator('#account').waitFor({ state: 'visible', timeout: 15_000 });
  await page.locator('#add-passkey').click();
  await page.locator('#add-password').fill(PASSWORD);
  await page.locator('#add-submit').click();
  await waitForStatus(page, /passkey has been added/i);
  log('passkey added for', CAROL);

  await clause('Interface 17.5, 16.3: a passkey signs in without an e-mail and goes to oauth2/authorize/resume', async () => {
    await context.clearCookies();
    page.requests = [];
    await page.goto(`${base}/signin?request=${REQUEST}`);
    await page.locator('#passkey').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate(() => window.isSecureContext), true);
    await Promise.all([
      page.waitForURL(resumeUrl(base, REQUEST)),
      page.locator('#passkey').click()
    ]);
    const session = (await context.cookies(base)).find((c) => c.name === HTTPS_COOKIE);
    assert.ok(session, 'the session cookie, __Host- for an https:// public URL');
    assert.equal(session.secure, true);
    assert.equal(session.httpOnly, true);
    assert.equal(posts(page, 'webauthn/login/options'), 1);
    assert.equal(posts(page, 'webauthn/login'), 1);
    assert.equal(posts(page, 'login'), 0);
    assertSameOriginOnly(page, base);
  });

  await clause('Interface 17.5, 16.4: the password of an account with a passkey asks the device at once, then goes on', async () => {
    await context.clearCookies();
    page.requests = [];
    const id = 'authdar_passkey-second';
    await page.goto(`${base}/signin?request=${id}&login_hint=${CAROL}`);
    await page.locator('#password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(resumeUrl(base, id)),
      page.locator('#signin-submit').click()
    ]);
    assert.ok((await context.cookies(base)).some((c) => c.name === HTTPS_COOKIE));
    assert.equal(posts(page, 'login'), 2, 'the password alone, then with the assertion');
    assert.equal(posts(page, 'webauthn/login/options'), 1);
    assertSameOriginOnly(page, base);
  });
}

runTest('oidc_signin_page', main);
