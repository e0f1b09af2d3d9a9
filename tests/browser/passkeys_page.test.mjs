// Browser test of the passkeys page (interface.md 16.8) and, through it,
// of passkeys themselves (interface.md 16.2 to 16.5) in headless Chromium.
//
//   node tests/browser/passkeys_page.test.mjs <path to authd>
//
// WebAuthn needs a secure context and an RP ID that is a domain: the page
// is loaded from http://localhost:<port> (not 127.0.0.1), and authd runs
// with that address as --public-url, so that the RP ID defaults to
// "localhost" and the allowed origin to the page's (interface.md 16.1.1).
// Chromium gets a virtual authenticator over the DevTools protocol (CTAP2,
// internal, resident keys, user verification, presence simulated), which
// creates and uses the passkeys the page asks for.
//
// Everything goes through the page's UI: the e-mail and password sign in,
// a passkey is added (its recovery codes shown once), the session is
// signed out, the passkey alone signs in without an e-mail and the list
// shows when it was last used, the password login then takes the passkey
// as its second factor by itself, a second passkey is added on a security
// key (a second virtual authenticator) with the first one as the second
// factor that the change needs (16.4.3), both passkeys are removed (each
// removal confirmed by the laptop's passkey, asked by the page by itself
// after the 403 that names "webauthn"), and the password alone signs in
// again. Answers this server does not give on demand (429, 503, 404, 409,
// an account with a TOTP only) are played by the browser in its place. The
// token never reaches storage or a cookie. Screenshots go to test-artifacts/.
//
// The database: a fresh SQLite file, or, when AUTHD_TEST_POSTGRES names a
// PostgreSQL server (scripts/with-postgres.sh), a fresh database there.
// Every process it starts is stopped on every path out. Exit status 0 on
// success.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import {
  launchBrowser, log, runAuthd, runTest, shot, waitFor, workDir, FAST_HASHING
} from './support.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);

const EMAIL = 'alice@example.com';
const PASSWORD = 'correct horse battery staple';
const PASSKEY_NAME = 'Test laptop';
const KEY_NAME = 'Security key';
const RECOVERY_CODE = 'k7qm-2xvd-wq4n-p3ja';

// The page's messages (src/web/passkeys.js), as the user reads them.
const SIGNED_IN_TEXT = /you are signed in/i;
const SIGNED_OUT_TEXT = /you are signed out/i;
const ADDED_WITH_CODES_TEXT = /passkey has been added.*recovery codes/i;
const ADDED_TEXT = /passkey has been added\. you can now sign in with it/i;
const REMOVED_TEXT = /passkey has been removed/i;
const WRONG_PASSWORD_TEXT = /password is wrong/i;
const PASSKEY_REFUSED_TEXT = /passkey was not accepted/i;
const TOO_MANY_TEXT = /too many attempts.*30 seconds/i;
const UNAVAILABLE_TEXT = /not available on this server.*try again in a moment/i;
const NOT_FOUND_TEXT = /no longer exists/i;
const ALREADY_REGISTERED_TEXT = /already registered/i;
const TOO_MANY_PASSKEYS_TEXT = /already has 20 passkeys/i;
const NEEDS_CODE_TEXT = /protected by a second factor.*authenticator app.*recovery code/i;
const CODE_REFUSED_TEXT = /code was not accepted/i;

// ---------------------------------------------------------------------------
// authd on http://localhost:<port>, on SQLite or PostgreSQL.

const children = [];
// The last resort on any way out (runTest's time limit exits the process).
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// A fresh database: the SQLite file, or a new database on AUTHD_TEST_POSTGRES
// and a --secret-key-file for the server (interface.md 12.2.2: no default
// key on PostgreSQL).
function freshDatabase() {
  const server = process.env.AUTHD_TEST_POSTGRES;
  if (!server) return { url: `sqlite:${path.join(workDir, 'authd.db')}`, args: [], backend: 'SQLite' };
  const name = `authdtest_passkeys_${process.pid}_${Date.now()}`;
  execFileSync('/usr/bin/psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`,
    '-c', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  const keyFile = path.join(workDir, 'secret.key');
  fs.writeFileSync(keyFile, `${execFileSync('openssl', ['rand', '-hex', '32']).toString().trim()}\n`, { mode: 0o600 });
  return { url: `${server}/${name}`, args: ['--secret-key-file', keyFile], backend: 'PostgreSQL' };
}

async function startAuthdOnLocalhost() {
  const database = freshDatabase();
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const portFile = path.join(workDir, 'authd.port');
  const logPath = path.join(workDir, 'authd.log');  // printed by runTest on failure
  const out = fs.openSync(logPath, 'a');
  const child = spawn(AUTHD, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', portFile, '--database', database.url, '--public-url', base,
    '--mail-dir', path.join(workDir, 'mail'), ...database.args, ...FAST_HASHING
  ], { stdio: ['ignore', out, out], cwd: workDir });
  fs.closeSync(out);
  children.push(child);
  const authd = {
    child,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    log: () => fs.readFileSync(logPath, 'utf8'),
    async stop() {
      if (authd.exited()) return;
      child.kill('SIGTERM');
      try {
        await waitFor('authd to exit', () => authd.exited(), 10_000);
      } catch {
        child.kill('SIGKILL');
      }
    }
  };
  await waitFor('authd to listen', () => {
    if (authd.exited()) throw new Error(`authd exited:\n${authd.log()}`);
    try {
      return fs.readFileSync(portFile, 'utf8').endsWith('\n');
    } catch {
      return false;
    }
  });
  await waitFor('authd /healthz', async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
    } catch {
      return false;
    }
  });
  log(`authd on ${base} (${database.backend})`);
  return { authd, base, database };
}

// ---------------------------------------------------------------------------
// The page.

// Every request the page sends, and the Authorization of each login's 200.
function recordTraffic(page) {
  const traffic = { requests: [], tokens: [], loginAnswers: [], changeAnswers: [], cspViolations: [] };
  page.on('request', (request) => {
    const url = new URL(request.url());
    traffic.requests.push({
      method: request.method(), path: url.pathname, headers: request.headers(),
      body: request.postData()
    });
  });
  page.on('response', async (response) => {
    const url = new URL(response.url());
    // The changes of 16.4.3: adding (its options) and removing a passkey.
    if (/^\/webauthn\/(register\/options|credentials\/[^/]+\/remove)$/.test(url.pathname)) {
      traffic.changeAnswers.push(response.allHeaders().then((headers) =>
        ({ path: url.pathname, status: response.status(), secondFactor: headers['authd-second-factor'] })));
      return;
    }
    if (!/^\/(login|webauthn\/login)$/.test(url.pathname)) return;
    const headers = await response.allHeaders();
    traffic.loginAnswers.push({ path: url.pathname, status: response.status(), secondFactor: headers['authd-second-factor'] });
    if (response.status() === 200) traffic.tokens.push((headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
  });
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Trusted Type/i.test(text) && !/favicon/i.test(text)) traffic.cspViolations.push(text);
  });
  page.on('pageerror', (error) => traffic.cspViolations.push(`page error: ${error.message}`));
  traffic.mark = () => traffic.requests.length;
  // The answers to the changes from the `from`-th on: { path, status, secondFactor }.
  traffic.changes = (from) => Promise.all(traffic.changeAnswers.slice(from));
  traffic.since = (mark) => traffic.requests.slice(mark).map((r) => `${r.method} ${r.path}`);
  return traffic;
}

async function statusText(page) {
  return (await page.locator('#status').textContent()) ?? '';
}

async function waitForStatus(page, pattern) {
  try {
    await page.locator('#status').filter({ hasText: pattern }).waitFor({ timeout: 15_000 });
  } catch (error) {
    throw new Error(`the status never matched ${pattern}; it says: "${await statusText(page)}"`);
  }
  return statusText(page);
}

// The rows of the passkey list, as the page shows them.
async function listed(page) {
  return page.locator('#passkey-list > li').evaluateAll((items) => items.map((item) => ({
    id: item.dataset.passkeyId,
    lastUsedAt: item.dataset.lastUsedAt,
    name: item.querySelector('.passkey-name')?.textContent,
    text: item.textContent
  })));
}

async function signInWithPassword(page) {
  await page.locator('#email').fill(EMAIL);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('#password-submit').click();
  await page.locator('#account').waitFor({ state: 'visible', timeout: 15_000 });
  await waitForStatus(page, SIGNED_IN_TEXT);
}

async function signOut(page, traffic, base) {
  const token = traffic.tokens.at(-1);
  const mark = traffic.mark();
  await page.locator('#sign-out').click();
  await waitForStatus(page, SIGNED_OUT_TEXT);
  await page.locator('#signin').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#account').isVisible(), false);
  assert.deepEqual(traffic.since(mark), ['POST /logout']);
  const logout = traffic.requests[mark];
  assert.equal(logout.headers.authorization, `Bearer ${token}`, 'logout sends the session token');
  // The session is over on the server, not only forgotten by the page.
  const me = await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(me.status, 401, 'the token no longer works after signing out');
}

// Nothing of the session outside the page's memory.
async function assertNothingStored(page, context, base) {
  const stored = await page.evaluate(() => ({
    local: window.localStorage.length, session: window.sessionStorage.length, cookie: document.cookie
  }));
  assert.deepEqual(stored, { local: 0, session: 0, cookie: '' });
  assert.deepEqual(await context.cookies(base), []);
}

// Runs one clause's check, naming it in the log and in a failure.
async function clause(name, check) {
  try {
    await check();
  } catch (error) {
    error.message = `${name}: ${error.message}`;
    throw error;
  }
  log('ok -', name);
}

// ---------------------------------------------------------------------------

async function main() {
  assert.ok(AUTHD, 'usage: node passkeys_page.test.mjs <path to authd>');
  const { authd, base, database } = await startAuthdOnLocalhost();
  try {
    const added = await runAuthd(AUTHD, ['user', 'add', '--email', EMAIL, '--database', database.url,
      ...FAST_HASHING], PASSWORD);
    assert.equal(added.code, 0, `user add failed: ${added.output}`);

    const context = await launchBrowser();
    const page = await context.newPage();
    const traffic = recordTraffic(page);

    // The virtual authenticator of this page (a platform one, as a laptop's).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true,
        isUserVerified: true, automaticPresenceSimulation: true
      }
    });
    const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

    await clause('Interface 16.8: the page is served under the Content-Security-Policy of /reset', async () => {
      const served = await page.goto(`${base}/passkeys`);
      assert.equal(served.status(), 200);
      const headers = served.headers();
      assert.match(headers['content-type'], /^text\/html/);
      assert.match(headers['content-security-policy'] ?? '', /default-src 'none'/);
      assert.match(headers['content-security-policy'] ?? '', /require-trusted-types-for 'script'/);
      assert.doesNotMatch(headers['content-security-policy'] ?? '', /unsafe-inline/);
      assert.equal(headers['x-frame-options'], 'DENY');
      assert.equal(headers['referrer-policy'], 'no-referrer');
      await page.locator('#signin').waitFor({ state: 'visible' });
      assert.equal(await page.evaluate(() => window.isSecureContext), true, 'localhost is a secure context');
      assert.equal(await page.locator('#passkey-signin').isEnabled(), true, 'passkeys are offered');
      assert.equal(await page.locator('#account').isVisible(), false);
      assert.equal(await page.locator('#email').getAttribute('autocomplete'), 'username');
      assert.equal(await page.locator('#password').getAttribute('autocomplete'), 'current-password');
      assert.deepEqual(traffic.requests.filter((r) => r.method !== 'GET'), [], 'opening the page sends nothing');
      await shot(page, 'passkeys-page-signin.png');
    });

    await clause('Interface 16.8: signs in with the e-mail and password; the token stays in memory', async () => {
      await signInWithPassword(page);
      assert.match(await page.locator('#signed-in-as').textContent(), /alice@example\.com/);
      assert.equal(await page.locator('#passkeys-empty').isVisible(), true);
      assert.deepEqual(await listed(page), []);
      const list = traffic.requests.find((r) => r.path === '/webauthn/credentials');
      assert.equal(list.method, 'GET');
      assert.equal(list.headers.authorization, `Bearer ${traffic.tokens.at(-1)}`);
      assert.equal(list.headers.cookie, undefined, 'the page sends no cookie');
      await assertNothingStored(page, context, base);
    });

    await clause('Interface 16.2.1: adding a passkey asks for the password; a wrong one is refused (403)', async () => {
      await page.locator('#add-passkey').click();
      await page.locator('#add-form').waitFor({ state: 'visible' });
      await page.locator('#add-password').fill('not the password');
      const mark = traffic.mark();
      const answers = traffic.changeAnswers.length;
      await page.locator('#add-submit').click();
      await waitForStatus(page, WRONG_PASSWORD_TEXT);
      assert.deepEqual(traffic.since(mark), ['POST /webauthn/register/options']);
      const [refused] = await traffic.changes(answers);
      assert.equal(refused.status, 403);
      assert.equal(refused.secondFactor, undefined, 'no Authd-Second-Factor: the account has no factor yet');
      assert.equal(await page.locator('#add-password').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#add-code-field').isVisible(), false, 'no code asked for');
      assert.deepEqual(await credentials(), [], 'the device was not asked');
    });

    let passkeyId = null;
    await clause('Interface 16.8, 16.2.2: adds a passkey; its recovery codes are shown once', async () => {
      await page.locator('#add-name').fill(PASSKEY_NAME);
      await page.locator('#add-password').fill(PASSWORD);
      const mark = traffic.mark();
      await page.locator('#add-submit').click();
      await waitForStatus(page, ADDED_WITH_CODES_TEXT);
      assert.deepEqual(traffic.since(mark),
        ['POST /webauthn/register/options', 'POST /webauthn/register', 'GET /webauthn/credentials']);
      const registration = JSON.parse(traffic.requests[mark + 1].body);
      assert.equal(registration.name, PASSKEY_NAME);
      assert.equal(registration.credential.type, 'public-key');
      assert.match(registration.credential.response.attestationObject, /^[A-Za-z0-9_-]+$/, 'base64url');
      await page.locator('#recovery-codes').waitFor({ state: 'visible' });
      const codes = await page.locator('#recovery-code-list > li').allTextContents();
      assert.equal(codes.length, 10, `ten recovery codes: ${JSON.stringify(codes)}`);
      assert.equal(await page.locator('#add-form').isVisible(), false);
      const rows = await listed(page);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].name, PASSKEY_NAME);
      assert.equal(rows[0].lastUsedAt, '', 'not used yet');
      passkeyId = rows[0].id;
      await shot(page, 'passkeys-page-added.png');
      await page.locator('#recovery-done').click();
      assert.equal(await page.locator('#recovery-codes').isVisible(), false);
      assert.equal(await page.locator('#recovery-code-list > li').count(), 0, 'the codes leave the page');
    });

    await clause('Interface 16.2.1: the authenticator holds one resident credential for the RP ID localhost', async () => {
      const held = await credentials();
      assert.equal(held.length, 1, JSON.stringify(held));
      assert.equal(held[0].isResidentCredential, true);
      assert.equal(held[0].rpId, 'localhost');
      assert.equal(Buffer.from(held[0].credentialId, 'base64').toString('base64url'), passkeyId,
        'the list shows the device\'s credential id');
    });

    await clause('Interface 16.4.3, 16.2.1: with a passkey, adding one asks it first; excludeCredentials keeps the device from registering twice', async () => {
      await page.locator('#add-passkey').click();
      await page.locator('#add-password').fill(PASSWORD);
      const mark = traffic.mark();
      const answers = traffic.changeAnswers.length;
      const signCount = (await credentials())[0].signCount;
      await page.locator('#add-submit').click();
      await waitForStatus(page, /already holds a passkey for your account/i);
      // The password alone: 403 naming the passkey; the page asks the device
      // for an assertion and sends the same request again with it.
      assert.deepEqual(traffic.since(mark),
        ['POST /webauthn/register/options', 'POST /webauthn/login/options', 'POST /webauthn/register/options']);
      const [first, second] = await traffic.changes(answers);
      assert.equal(first.status, 403);
      assert.equal(first.secondFactor, 'webauthn');
      assert.equal(second.status, 200);
      assert.deepEqual(JSON.parse(traffic.requests[mark].body), { password: PASSWORD });
      const repeated = JSON.parse(traffic.requests[mark + 2].body);
      assert.deepEqual(Object.keys(repeated).sort(), ['password', 'webauthn']);
      assert.equal(repeated.password, PASSWORD);
      assert.equal(repeated.webauthn.id, passkeyId, 'the passkey of the account confirmed it');
      assert.equal(repeated.webauthn.type, 'public-key');
      assert.match(repeated.webauthn.response.signature, /^[A-Za-z0-9_-]+$/, 'base64url');
      assert.equal((await credentials()).length, 1);
      assert.ok((await credentials())[0].signCount > signCount, 'the device signed the second factor');
      assert.equal(await page.locator('#add-code-field').isVisible(), false, 'no code asked for');
      await page.locator('#add-cancel').click();
      assert.equal(await page.locator('#add-form').isVisible(), false);
    });

    await clause('Interface 16.8: signs out (POST /logout) and forgets the token', async () => {
      await signOut(page, traffic, base);
      assert.deepEqual(await listed(page), [], 'the list leaves the page');
    });

    await clause('Interface 16.3: signs in with the passkey alone, no e-mail typed', async () => {
      await page.locator('#email').fill('');
      const mark = traffic.mark();
      await page.locator('#passkey-signin').click();
      await page.locator('#account').waitFor({ state: 'visible', timeout: 15_000 });
      await waitForStatus(page, SIGNED_IN_TEXT);
      assert.deepEqual(traffic.since(mark),
        ['POST /webauthn/login/options', 'POST /webauthn/login', 'GET /webauthn/credentials']);
      const assertion = JSON.parse(traffic.requests[mark + 1].body);
      assert.deepEqual(Object.keys(assertion), ['credential']);
      assert.equal(assertion.credential.id, passkeyId);
      assert.ok(assertion.credential.response.userHandle, 'a discoverable credential names its user');
      assert.match(await page.locator('#signed-in-as').textContent(), /alice@example\.com/);
      assert.equal((await credentials())[0].signCount > 0, true, 'the device signed');
    });

    await clause('Interface 16.5.1: the list shows the one passkey, with lastUsedAt set', async () => {
      const rows = await listed(page);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].id, passkeyId);
      assert.ok(!Number.isNaN(Date.parse(rows[0].lastUsedAt)), `lastUsedAt: "${rows[0].lastUsedAt}"`);
      assert.match(rows[0].text, /last used/i);
      await shot(page, 'passkeys-page-list.png');
      await signOut(page, traffic, base);
    });

    await clause('Interface 16.4: a password login takes the passkey as its second factor by itself', async () => {
      const mark = traffic.mark();
      const answers = traffic.loginAnswers.length;
      await signInWithPassword(page);
      assert.deepEqual(traffic.since(mark),
        ['POST /login', 'POST /webauthn/login/options', 'POST /login', 'GET /webauthn/credentials']);
      const [first, second] = traffic.loginAnswers.slice(answers);
      assert.equal(first.status, 401);
      assert.match(first.secondFactor ?? '', /\bwebauthn\b/, 'Authd-Second-Factor names webauthn');
      assert.equal(second.status, 200);
      const repeated = JSON.parse(traffic.requests[mark + 2].body);
      assert.deepEqual(Object.keys(repeated).sort(), ['email', 'password', 'webauthn']);
      assert.equal(repeated.email, EMAIL);
      assert.equal(repeated.webauthn.id, passkeyId);
      assert.equal(await page.locator('#second-factor-form').isVisible(), false);
    });

    await clause('Interface 16.4.3: with a passkey, a wrong password still gets the plain 403; the device is not asked', async () => {
      const signCount = (await credentials())[0].signCount;
      await page.locator('#add-passkey').click();
      await page.locator('#add-form').waitFor({ state: 'visible' });
      await page.locator('#add-name').fill(KEY_NAME);
      await page.locator('#add-password').fill('not the password');
      const mark = traffic.mark();
      const answers = traffic.changeAnswers.length;
      await page.locator('#add-submit').click();
      await waitForStatus(page, WRONG_PASSWORD_TEXT);
      assert.deepEqual(traffic.since(mark), ['POST /webauthn/register/options']);
      const [refused] = await traffic.changes(answers);
      assert.equal(refused.status, 403);
      assert.equal(refused.secondFactor, undefined, 'a wrong password\'s 403 names no factor');
      assert.equal(await page.locator('#add-password').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#add-code-field').isVisible(), false, 'no code asked for');
      assert.equal((await credentials())[0].signCount, signCount, 'the device was not asked');
    });

    let keyId = null;
    await clause('Interface 16.4.3, 16.2: adding a second passkey (a security key) asks the first one as the second factor', async () => {
      // The security key is plugged in once the laptop's passkey has
      // confirmed the change: the second request, the one with "webauthn".
      // Until then, it would answer the assertion request itself ("no
      // passkey here") and end it.
      let keyAuthenticator = null;
      await page.route('**/webauthn/register/options', async (route) => {
        const body = JSON.parse(route.request().postData());
        if (body.webauthn !== undefined && keyAuthenticator === null) {
          keyAuthenticator = (await cdp.send('WebAuthn.addVirtualAuthenticator', {
            options: {
              protocol: 'ctap2', transport: 'usb', hasResidentKey: true, hasUserVerification: true,
              isUserVerified: true, automaticPresenceSimulation: true
            }
          })).authenticatorId;
        }
        return route.continue();
      });
      const signCount = (await credentials())[0].signCount;
      await page.locator('#add-password').fill(PASSWORD);
      const mark = traffic.mark();
      const answers = traffic.changeAnswers.length;
      await page.locator('#add-submit').click();
      await waitForStatus(page, ADDED_TEXT);
      await page.unrouteAll({ behavior: 'wait' });
      assert.deepEqual(traffic.since(mark), [
        'POST /webauthn/register/options', 'POST /webauthn/login/options', 'POST /webauthn/register/options',
        'POST /webauthn/register', 'GET /webauthn/credentials'
      ]);
      const [first, second] = await traffic.changes(answers);
      assert.equal(first.status, 403);
      assert.equal(first.secondFactor, 'webauthn', 'Authd-Second-Factor names the passkey');
      assert.equal(second.status, 200);
      assert.deepEqual(JSON.parse(traffic.requests[mark].body), { password: PASSWORD });
      const repeated = JSON.parse(traffic.requests[mark + 2].body);
      assert.deepEqual(Object.keys(repeated).sort(), ['password', 'webauthn']);
      assert.equal(repeated.webauthn.id, passkeyId, 'the laptop\'s passkey confirmed it');
      assert.ok(repeated.webauthn.response.userHandle, 'the assertion names its user');
      assert.ok((await credentials())[0].signCount > signCount, 'the laptop signed');
      assert.equal(await page.locator('#recovery-codes').isVisible(), false, 'no recovery codes: not the first factor');
      assert.equal(await page.locator('#add-form').isVisible(), false);
      const registration = JSON.parse(traffic.requests[mark + 3].body);
      assert.equal(registration.name, KEY_NAME);
      const rows = await listed(page);
      assert.deepEqual(rows.map((row) => row.name), [PASSKEY_NAME, KEY_NAME]);
      keyId = rows[1].id;
      assert.notEqual(keyId, passkeyId);
      assert.ok(keyAuthenticator, 'the security key was plugged in');
      const onKey = (await cdp.send('WebAuthn.getCredentials', { authenticatorId: keyAuthenticator })).credentials;
      assert.deepEqual(onKey.map((held) => Buffer.from(held.credentialId, 'base64').toString('base64url')), [keyId],
        'the new passkey is on the security key');
      assert.equal((await credentials()).length, 1, 'the laptop holds its one passkey still');
      await shot(page, 'passkeys-page-two.png');
      // Unplugged: from now on the laptop alone answers.
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: keyAuthenticator });
    });

    await clause('Interface 16.5.2, 16.2: a passkey that is not there (404), a duplicate (409) and the 21st passkey (409) are explained', async () => {
      // Played by the browser: the real passkey stays until the next clause.
      await page.route('**/webauthn/credentials/*/remove', (route) =>
        route.fulfill({ status: 404, contentType: 'application/json', body: '{"code":404,"message":"Not Found"}' }));
      await page.locator('#passkey-list > li .passkey-remove').first().click();
      await page.locator('#remove-password').fill(PASSWORD);
      await page.locator('#remove-submit').click();
      await waitForStatus(page, NOT_FOUND_TEXT);
      await page.unroute('**/webauthn/credentials/*/remove');
      await page.route('**/webauthn/register/options', (route) => route.fulfill({
        status: 200, contentType: 'application/json',
        body: JSON.stringify({ publicKey: {
          challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', rp: { id: 'localhost', name: 'authd' },
          user: { id: 'dXNlcg', name: EMAIL, displayName: EMAIL },
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }], timeout: 300000, attestation: 'none',
          authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
          excludeCredentials: [] } })
      }));
      await page.route('**/webauthn/register', (route) =>
        route.fulfill({ status: 409, contentType: 'application/json', body: '{"code":409,"message":"Conflict"}' }));
      await page.locator('#add-passkey').click();
      await page.locator('#add-password').fill(PASSWORD);
      await page.locator('#add-submit').click();
      await waitForStatus(page, ALREADY_REGISTERED_TEXT);
      await page.unrouteAll({ behavior: 'wait' });
      await page.route('**/webauthn/register/options', (route) =>
        route.fulfill({ status: 409, contentType: 'application/json', body: '{"code":409,"message":"Conflict"}' }));
      await page.locator('#add-password').fill(PASSWORD);
      await page.locator('#add-submit').click();
      await waitForStatus(page, TOO_MANY_PASSKEYS_TEXT);
      await page.unrouteAll({ behavior: 'wait' });
      await page.locator('#add-cancel').click();
      // The stubbed registration made a second credential on the device
      // (for a user the server never had): remove it, keep the real one.
      for (const held of await credentials()) {
        if (Buffer.from(held.credentialId, 'base64').toString('base64url') !== passkeyId) {
          await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: held.credentialId });
        }
      }
      assert.equal((await credentials()).length, 1);
      assert.equal((await listed(page)).length, 2, 'the list is unchanged');
    });

    // Removes the passkey `id` through the form, with the password; the page
    // gets the 403 that names "webauthn", and confirms with the laptop's
    // passkey by itself.
    async function removeWithPasskey(id, name) {
      await page.locator(`#passkey-list > li[data-passkey-id="${id}"] .passkey-remove`).click();
      await page.locator('#remove-form').waitFor({ state: 'visible' });
      assert.match(await page.locator('#remove-intro').textContent(), new RegExp(name));
      await page.locator('#remove-password').fill(PASSWORD);
      const signCount = (await credentials())[0].signCount;
      const mark = traffic.mark();
      const answers = traffic.changeAnswers.length;
      await page.locator('#remove-submit').click();
      await waitForStatus(page, REMOVED_TEXT);
      const route = `/webauthn/credentials/${encodeURIComponent(id)}/remove`;
      assert.deepEqual(traffic.since(mark),
        [`POST ${route}`, 'POST /webauthn/login/options', `POST ${route}`, 'GET /webauthn/credentials']);
      const [first, second] = await traffic.changes(answers);
      assert.equal(first.status, 403);
      assert.equal(first.secondFactor, 'webauthn', 'Authd-Second-Factor names the passkey');
      assert.equal(second.status, 204);
      assert.deepEqual(JSON.parse(traffic.requests[mark].body), { password: PASSWORD });
      const repeated = JSON.parse(traffic.requests[mark + 2].body);
      assert.deepEqual(Object.keys(repeated).sort(), ['password', 'webauthn']);
      assert.equal(repeated.password, PASSWORD);
      assert.equal(repeated.webauthn.id, passkeyId, 'the laptop\'s passkey confirmed it');
      assert.ok((await credentials())[0].signCount > signCount, 'the laptop signed');
      assert.equal(await page.locator('#remove-form').isVisible(), false);
      assert.equal(await page.locator('#remove-code-field').isVisible(), false, 'no code asked for');
    }

    await clause('Interface 16.5.2, 16.4.3: removes the security key\'s passkey, confirmed by the laptop\'s', async () => {
      await removeWithPasskey(keyId, KEY_NAME);
      assert.deepEqual((await listed(page)).map((row) => row.id), [passkeyId]);
    });

    await clause('Interface 16.5.2, 16.4.3: removes the last passkey with the password and the passkey itself', async () => {
      await removeWithPasskey(passkeyId, PASSKEY_NAME);
      assert.deepEqual(await listed(page), []);
      assert.equal(await page.locator('#passkeys-empty').isVisible(), true);
      await shot(page, 'passkeys-page-removed.png');
      await signOut(page, traffic, base);
    });

    await clause('Interface 16.3.2: the removed passkey no longer signs in (401)', async () => {
      await page.locator('#passkey-signin').click();
      await waitForStatus(page, PASSKEY_REFUSED_TEXT);
      assert.equal(await page.locator('#account').isVisible(), false);
      assert.equal(traffic.loginAnswers.at(-1).status, 401);
    });

    await clause('Interface 16.4.1: without a passkey, the password alone signs in again', async () => {
      const mark = traffic.mark();
      await signInWithPassword(page);
      assert.deepEqual(traffic.since(mark), ['POST /login', 'GET /webauthn/credentials']);
      assert.equal(traffic.loginAnswers.at(-1).status, 200);
      assert.equal(traffic.loginAnswers.at(-1).secondFactor, undefined);
      await assertNothingStored(page, context, base);
      await signOut(page, traffic, base);
    });

    await clause('Interface 16.4.2, 12.3.1: an account with TOTP only gets a code field, sent as "otp"', async () => {
      // Played by the browser: this account has no TOTP.
      const sent = [];
      await page.route('**/login', (route) => {
        const body = JSON.parse(route.request().postData());
        sent.push(body);
        if (body.otp === undefined) {
          return route.fulfill({ status: 401, headers: { 'Authd-Second-Factor': 'totp' },
            contentType: 'application/json', body: '{"code":401,"message":"Unauthorized Error"}' });
        }
        return route.fulfill({ status: 200, headers: { Authorization: 'Bearer authd_stubbed' },
          contentType: 'application/json', body: JSON.stringify({ id: 'stub', email: EMAIL }) });
      });
      await page.route('**/webauthn/credentials', (route) => {
        assert.equal(route.request().headers().authorization, 'Bearer authd_stubbed');
        return route.fulfill({ status: 200, contentType: 'application/json', body: '{"passkeys":[]}' });
      });
      await page.route('**/logout', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }));
      const mark = traffic.mark();
      await page.setViewportSize({ width: 360, height: 740 });
      await page.locator('#email').fill(EMAIL);
      await page.locator('#password').fill(PASSWORD);
      await page.locator('#password-submit').click();
      await page.locator('#second-factor-form').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#second-factor-passkey').isVisible(), false, 'no passkey offered');
      assert.equal(await page.locator('#password-form').isVisible(), false);
      await shot(page, 'passkeys-page-totp-narrow.png');
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      assert.ok(fits, 'no horizontal scrolling on a narrow screen');
      await page.locator('#second-factor-code').fill('123456');
      await page.locator('#second-factor-submit').click();
      await page.locator('#account').waitFor({ state: 'visible' });
      assert.deepEqual(sent, [{ email: EMAIL, password: PASSWORD }, { email: EMAIL, password: PASSWORD, otp: '123456' }]);
      assert.ok(!traffic.since(mark).includes('POST /webauthn/login/options'), 'no passkey asked for');
      await page.locator('#sign-out').click();
      await waitForStatus(page, SIGNED_OUT_TEXT);
      await page.unrouteAll({ behavior: 'wait' });
      await page.setViewportSize({ width: 1024, height: 720 });
    });

    await clause('Interface 16.4.3: a code field when the header lists a TOTP only, or the passkey is not accepted (six digits "otp", else "recoveryCode")', async () => {
      // Played by the browser: a session whose account has a TOTP, and
      // passkeys that the header names or not as each step needs.
      const stubPasskey = (id, name) => ({ id, name, createdAt: '2026-01-02T03:04:05Z', lastUsedAt: null, backedUp: false });
      let passkeys = [stubPasskey('c3R1YnBhc3NrZXk', 'Old phone'), stubPasskey('c3R1YmtleQ', 'Old key')];
      let factors = 'totp';
      const sent = [];
      await page.route('**/login', (route) => route.fulfill({ status: 200, headers: { Authorization: 'Bearer authd_stubbed' },
        contentType: 'application/json', body: JSON.stringify({ id: 'stub', email: EMAIL }) }));
      await page.route('**/webauthn/credentials', (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ passkeys }) }));
      await page.route('**/webauthn/credentials/*/remove', (route) => {
        assert.equal(route.request().headers().authorization, 'Bearer authd_stubbed');
        const body = JSON.parse(route.request().postData());
        sent.push(body);
        if (body.recoveryCode === RECOVERY_CODE || body.otp === '654321') {
          passkeys = passkeys.slice(1);
          return route.fulfill({ status: 204 });
        }
        return route.fulfill({ status: 403, headers: { 'Authd-Second-Factor': factors },
          contentType: 'application/json', body: '{"code":403,"message":"Forbidden"}' });
      });
      await page.route('**/logout', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }));
      await signInWithPassword(page);
      const mark = traffic.mark();
      await page.locator('#passkey-list > li .passkey-remove').first().click();
      await page.locator('#remove-password').fill(PASSWORD);
      await page.locator('#remove-submit').click();
      await waitForStatus(page, NEEDS_CODE_TEXT);
      await page.locator('#remove-code-field').waitFor({ state: 'visible' });
      assert.match(await page.locator('#remove-code-label').textContent(), /authenticator app.*recovery code/i);
      assert.equal(await page.locator('#remove-code').getAttribute('autocomplete'), 'one-time-code');
      assert.equal(await page.locator('#remove-form').isVisible(), true);
      await shot(page, 'passkeys-page-remove-code.png');
      await page.locator('#remove-code').fill('123456');
      await page.locator('#remove-submit').click();
      await waitForStatus(page, CODE_REFUSED_TEXT);
      assert.equal(await page.locator('#remove-code').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#remove-code').inputValue(), '', 'the refused code is cleared');
      await page.locator('#remove-code').fill(RECOVERY_CODE);
      await page.locator('#remove-submit').click();
      await waitForStatus(page, REMOVED_TEXT);
      assert.deepEqual(sent, [
        { password: PASSWORD }, { password: PASSWORD, otp: '123456' }, { password: PASSWORD, recoveryCode: RECOVERY_CODE }
      ]);
      assert.ok(!traffic.since(mark).includes('POST /webauthn/login/options'), 'no passkey asked for');
      assert.equal(await page.locator('#remove-form').isVisible(), false);
      assert.deepEqual((await listed(page)).map((row) => row.name), ['Old key']);

      // "totp, webauthn": the page asks the device, which offers the
      // laptop's passkey (removed from the account by now): the stub does
      // not accept it; the refusal is said, and the code field shown.
      factors = 'totp, webauthn';
      sent.length = 0;
      await page.locator('#passkey-list > li .passkey-remove').first().click();
      await page.locator('#remove-password').fill(PASSWORD);
      const asked = traffic.mark();
      await page.locator('#remove-submit').click();
      await waitForStatus(page, /passkey was not accepted.*code from your authenticator app or a recovery code/i);
      const route = 'POST /webauthn/credentials/c3R1YmtleQ/remove';
      assert.deepEqual(traffic.since(asked), [route, 'POST /webauthn/login/options', route]);
      await page.locator('#remove-code-field').waitFor({ state: 'visible' });
      assert.match(await page.locator('#remove-code-hint').textContent(), /leave it empty to use your passkey/i);
      await page.locator('#remove-code').fill('654321');
      await page.locator('#remove-submit').click();
      await waitForStatus(page, REMOVED_TEXT);
      assert.equal(sent.length, 3);
      assert.deepEqual(sent[0], { password: PASSWORD });
      assert.deepEqual(Object.keys(sent[1]).sort(), ['password', 'webauthn']);
      assert.equal(sent[1].webauthn.id, passkeyId);
      assert.deepEqual(sent[2], { password: PASSWORD, otp: '654321' }, 'the code alone: no assertion sent again');
      assert.equal(await page.locator('#passkeys-empty').isVisible(), true);
      await page.locator('#sign-out').click();
      await waitForStatus(page, SIGNED_OUT_TEXT);
      await page.unrouteAll({ behavior: 'wait' });
    });

    await clause('Interface 16.3.1: 429 with Retry-After and 503 each have their message', async () => {
      let reply = null;
      await page.route('**/webauthn/login/options', (route) => route.fulfill(reply));
      reply = { status: 429, headers: { 'Retry-After': '30' }, contentType: 'application/json',
        body: '{"code":429,"message":"Too Many Requests"}' };
      await page.locator('#passkey-signin').click();
      await waitForStatus(page, TOO_MANY_TEXT);
      reply = { status: 503, headers: { 'Retry-After': '1' }, contentType: 'application/json',
        body: '{"code":503,"message":"Service Unavailable"}' };
      await page.locator('#passkey-signin').click();
      await waitForStatus(page, UNAVAILABLE_TEXT);
      await page.unrouteAll({ behavior: 'wait' });
      assert.equal(await page.locator('#passkey-signin').isEnabled(), true, 'another try is possible');
    });

    await clause('Interface 16.8: no CSP or Trusted Types violation, nothing stored', async () => {
      assert.deepEqual(traffic.cspViolations, []);
      await assertNothingStored(page, context, base);
      assert.equal(authd.exited(), false, `authd exited:\n${authd.log()}`);
    });
  } finally {
    await authd.stop();
  }
  log('ok');
}

await runTest('passkeys_page', main);
