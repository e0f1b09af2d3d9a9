// Browser test of the operator's console (interface.md 21.3) in headless
// Chromium (Debian's, driven by playwright-core):
//
//   node tests/browser/console.test.mjs <path to authd>
//
// authd on SQLite or, with AUTHD_TEST_POSTGRES, PostgreSQL, with
// --console-idle-timeout 10s; operators granted with `authd operator
// grant`, each with a TOTP factor. Checked, each a clause:
// - a write operator's whole round through the page: sign in, find a user
//   by e-mail, inspect it, send a reset mail, end a session, disable, erase
//   (typed confirmation), every change checked with an admin key;
// - a read operator: the page offers no change, and every change it still
//   sends from the page is refused (403), nothing changed;
// - a session that idles out: the next action shows the sign-in again;
// - the page framed by another origin is refused (nothing of it renders);
// - forged requests from another origin's page (a form POST, a no-cors
//   fetch), carrying the console's cookie, are refused and change nothing.
// - the user's page fits a phone's width.
// Screenshots go to test-artifacts/ (docs/guide/console.md shows them).
// Exit status 0 on success.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import {
  freePort, launchBrowser, log, logOf, openPage, portFrom, runAuthd, runTest, shot, startProcess,
  waitFor, waitForStatus, workDir, FAST_HASHING
} from './support.mjs';
import { codeAfter, currentStep, totp } from '../support/totp.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);
const PASSWORD = 'correct horse battery staple';
const WRITER = 'alice@example.com';
const READER = 'carol@example.com';
const BOB = 'bob@example.com';
const IDLE_SECONDS = 10;

async function clause(name, check) {
  try {
    await check();
  } catch (error) {
    error.message = `${name}: ${error.message}`;
    throw error;
  }
  log('ok -', name);
}

async function call(url, method, { body, token, key } = {}) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

// An account with a confirmed TOTP factor: its secret, the step that
// confirmed it (codes of later steps are free) and its recovery codes.
async function enrolled(server, email) {
  assert.equal((await runAuthd(AUTHD, ['user', 'add', '--email', email, '--database', server.database, ...FAST_HASHING], PASSWORD)).code, 0);
  const login = await call(`${server.base}/login`, 'POST', { body: { email, password: PASSWORD } });
  const token = /^Bearer (\S+)$/.exec(login.headers.get('authorization') ?? '')?.[1];
  assert.ok(token, `a session for ${email}`);
  const started = await call(`${server.base}/mfa/totp`, 'POST', { body: { password: PASSWORD }, token });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const step = currentStep();
  const confirmed = await call(`${server.base}/mfa/totp/confirm`, 'POST', { body: { code: totp(started.body.secret, step) }, token });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return { secret: started.body.secret, step, recovery: confirmed.body.recoveryCodes };
}

async function cli(server, args) {
  const result = await runAuthd(AUTHD, [...args, '--database', server.database], '');
  assert.equal(result.code, 0, `authd ${args.join(' ')}: ${result.output}`);
  return result.output;
}

// ---------------------------------------------------------------------------
// authd, and a site of another origin.

function freshDatabase() {
  const server = process.env.AUTHD_TEST_POSTGRES;
  if (!server) return { url: `sqlite:${path.join(workDir, 'authd.db')}`, args: [] };
  const database = `authdtest_console_${process.pid}_${Date.now()}`;
  execFileSync('/usr/bin/psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`,
    '-c', `CREATE DATABASE ${database}`], { stdio: 'pipe' });
  const keyFile = path.join(workDir, 'secret.key');
  fs.writeFileSync(keyFile, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return { url: `${server}/${database}`, args: ['--secret-key-file', keyFile] };
}

async function startServer() {
  const database = freshDatabase();
  const port = await freePort();
  const adminPort = await freePort();
  const portFile = path.join(workDir, 'authd.port');
  const mailDir = path.join(workDir, 'mail');
  const authd = startProcess('authd', AUTHD, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', `127.0.0.1:${adminPort}`,
    '--port-file', portFile, '--database', database.url, '--mail-dir', mailDir,
    '--public-url', `http://127.0.0.1:${port}`, '--console-idle-timeout', `${IDLE_SECONDS}s`,
    ...database.args, ...FAST_HASHING
  ]);
  assert.equal(await portFrom(authd, portFile), port);
  const admin = `http://127.0.0.1:${adminPort}`;
  await waitFor('the management listener', async () => {
    try { return (await fetch(`${admin}/healthz`)).status === 200; } catch { return false; }
  });
  log('authd on', port, 'management', adminPort, process.env.AUTHD_TEST_POSTGRES ? 'PostgreSQL' : 'SQLite');
  return { authd, base: `http://127.0.0.1:${port}`, admin, database: database.url, args: database.args, mailDir };
}

// Another origin (another port: same site, so SameSite=Strict still sends
// the cookie; the Origin rule is what refuses): a page framing the
// console, and a page forging requests to it.
async function startForeignSite(admin, userId) {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    if (request.url === '/frame') {
      response.end(`<!doctype html><title>framing</title><iframe id="victim" src="${admin}/console/"></iframe>`);
    } else {
      response.end(`<!doctype html><title>forged</title>
<form id="forged" method="post" action="${admin}/admin/users/${userId}/password-reset"></form>`);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

async function signIn(page, server, email, code) {
  await page.goto(`${server.admin}/console/`);
  await page.locator('#signin').waitFor();
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.fill('#code', code);
  await page.click('#signin-submit');
  await page.locator('#whoami').filter({ hasText: email }).waitFor();
}

async function openUser(page, email) {
  await page.fill('#find-query', email);
  await page.keyboard.press('Enter');  // the keyboard submits the search
  await page.locator('#results a', { hasText: email }).click();
  await page.locator('#user-heading').filter({ hasText: email }).waitFor();
}

async function userOf(server, key, email) {
  const found = await call(`${server.admin}/admin/users?email=${encodeURIComponent(email)}`, 'GET', { key });
  assert.equal(found.status, 200);
  return found.body.users[0];
}

// Waits until the audit trail's table shows rows, every one of them with `text`.
async function untilEveryRowSays(page, text) {
  for (let tries = 0; tries < 200; tries += 1) {
    const rows = await page.locator('#events tbody tr').allTextContents();
    if (rows.length > 0 && rows.every((row) => row.includes(text))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the audit trail never showed only ${text} rows`);
}

async function main() {
  assert.ok(AUTHD, 'usage: node console.test.mjs <path to authd>');
  const server = await startServer();
  const key = (await cli(server, ['admin-key', 'create', '--name', 'checker', '--scope', 'write'])).trim();
  server.key = key;
  const writer = await enrolled(server, WRITER);
  const reader = await enrolled(server, READER);
  await cli(server, ['operator', 'grant', '--email', WRITER, '--scope', 'write']);
  await cli(server, ['operator', 'grant', '--email', READER, '--scope', 'read']);
  assert.equal((await runAuthd(AUTHD, ['user', 'add', '--email', BOB, '--database', server.database, ...FAST_HASHING], PASSWORD)).code, 0);
  const bobLogin = await call(`${server.base}/login`, 'POST', { body: { email: BOB, password: PASSWORD } });
  const bobToken = /^Bearer (\S+)$/.exec(bobLogin.headers.get('authorization') ?? '')?.[1];
  const bob = await userOf(server, key, BOB);
  const context = await launchBrowser();

  await clause('21.3 a read operator sees no change and every change it sends is refused', async () => {
    const page = await openPage(context, 'console');
    await signIn(page, server, READER, codeAfter(reader.secret, reader.step));
    assert.match(await page.locator('#whoami').textContent(), /\(read\)/);
    await openUser(page, BOB);
    assert.equal(await page.locator('#toggle-disabled').isVisible(), false);
    assert.equal(await page.locator('#erase').isVisible(), false);
    await shot(page, 'console-read-only.png');
    const statuses = await page.evaluate(async (id) => {
      const send = (method, path, body) => fetch(path, {
        method, credentials: 'same-origin', headers: body ? { 'Content-Type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined
      }).then((r) => r.status);
      return [
        await send('PATCH', `/admin/users/${id}`, { disabled: true }),
        await send('DELETE', `/admin/users/${id}/sessions`),
        await send('POST', `/admin/users/${id}/password-reset`),
        await send('DELETE', `/admin/users/${id}`)
      ];
    }, bob.id);
    assert.deepEqual(statuses, [403, 403, 403, 403]);
    assert.equal((await userOf(server, key, BOB)).disabled, false);
    assert.equal((await call(`${server.base}/me`, 'GET', { token: bobToken })).status, 200);
    assert.deepEqual(page.cspViolations, []);
    await page.click('#signout');  // the browser's next operator signs in afresh
    await page.locator('#signin-section').waitFor({ state: 'visible' });
    await page.close();
  });

  const page = await openPage(context, 'console');
  await clause('21.3 a write operator signs in with password and TOTP code', async () => {
    await page.goto(`${server.admin}/console/`);
    await page.locator('#signin').waitFor();
    await shot(page, 'console-sign-in.png');
    await signIn(page, server, WRITER, codeAfter(writer.secret, writer.step));
    assert.match(await page.locator('#whoami').textContent(), /\(write\)/);
  });

  await clause('21.3 forged requests from another origin are refused', async () => {
    const foreign = await startForeignSite(server.admin, bob.id);
    try {
      const forger = await context.newPage();
      await forger.goto(`${foreign.origin}/forged`);
      await forger.evaluate((url) => fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(() => null),
        `${server.admin}/console/sign-out`);
      await Promise.all([forger.waitForNavigation(), forger.evaluate(() => document.getElementById('forged').submit())]);
      assert.match(await forger.content(), /Forbidden/);
      await forger.close();
      const framer = await context.newPage();
      await framer.goto(`${foreign.origin}/frame`);
      const frame = await (await framer.$('#victim')).contentFrame();
      await waitFor('the framed console to settle', () => frame.url() !== 'about:blank');
      assert.equal(await frame.locator('#signin-section, #app').count(), 0, `framed: ${frame.url()}`);
      await framer.close();
    } finally {
      foreign.server.close();
    }
    const events = await call(`${server.admin}/admin/events?type=password.reset_requested`, 'GET', { key });
    assert.equal(events.body.events.length, 0, JSON.stringify(events.body));
    const refused = logOf(server.authd).split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))
      .filter((entry) => entry.event === 'request' && entry.status === 403).map((entry) => entry.route);
    assert.ok(refused.includes('/admin/users/{id}/password-reset') && refused.includes('/console/sign-out'), JSON.stringify(refused));
    // The operator is still signed in: the forged sign-out changed nothing.
    assert.equal((await page.evaluate(() => fetch('/console/session').then((r) => r.status))), 200);
  });

  await clause('21.3 a write operator finds, inspects and acts on a user', async () => {
    await openUser(page, BOB);
    await page.locator('#sessions tbody tr[data-session]').first().waitFor();
    await shot(page, 'console-user.png');
    // Readable on a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'wider than a phone');
    await shot(page, 'console-user-phone.png');
    await page.setViewportSize({ width: 1024, height: 720 });
    await page.click('#send-reset');
    await waitForStatus(page, /reset mail/);
    await waitFor('the reset mail', () => fs.existsSync(server.mailDir) && fs.readdirSync(server.mailDir).some((n) => n.endsWith('.eml')), 30_000);
    await page.locator('#sessions tbody tr[data-session] button').first().click();
    await waitForStatus(page, /session has ended/);
    assert.equal((await call(`${server.base}/me`, 'GET', { token: bobToken })).status, 401);
    await page.click('#toggle-disabled');
    await waitForStatus(page, /disabled/);
    assert.equal((await userOf(server, key, BOB)).disabled, true);
    const events = await call(`${server.admin}/admin/events?type=user.disabled&userId=${bob.id}`, 'GET', { key });
    assert.equal(events.body.events[0].actor, `operator:${WRITER}`);
    await page.fill('#erase-confirm', 'not the address');
    await page.click('#erase-submit');
    await waitForStatus(page, /exactly/);
    assert.equal((await call(`${server.admin}/admin/users/${bob.id}`, 'GET', { key })).status, 200);
    await page.fill('#erase-confirm', BOB);
    await page.click('#erase-submit');
    await waitForStatus(page, /is erased/);
    assert.equal((await call(`${server.admin}/admin/users/${bob.id}`, 'GET', { key })).status, 404);
    assert.deepEqual(page.cspViolations, []);
  });

  await clause('21.1 clients, admin keys and the audit trail through the page', async () => {
    page.on('dialog', (dialog) => dialog.accept(dialog.message().includes('Type its name') ? 'ci-robot' : ''));
    await page.click('#nav a[data-view="keys"]');
    await page.locator('#keys tbody tr[data-key="checker"]').waitFor();
    await shot(page, 'console-keys.png');
    await page.fill('#key-name', 'ci-robot');
    await page.selectOption('#key-scope', 'read');
    await page.click('#key-create-submit');
    await waitForStatus(page, /is created/);
    const key = (await page.locator('#key-value').textContent()).trim();
    assert.match(key, /^authdak_[A-Za-z0-9_-]{43}$/);
    assert.equal((await call(`${server.admin}/admin/users`, 'GET', { key })).status, 200);
    await page.locator('#keys tbody tr[data-key="ci-robot"] button').click();
    await waitForStatus(page, /is revoked/);
    assert.equal((await call(`${server.admin}/admin/users`, 'GET', { key })).status, 401);

    await page.click('#nav a[data-view="clients"]');
    await page.fill('#client-name', 'Wiki');
    await page.fill('#client-uris', 'https://wiki.example/callback');
    await page.click('#client-create-submit');
    await waitForStatus(page, /is registered/);
    assert.match(await page.locator('#secret-value').textContent(), /^authdcs_/);
    const row = page.locator('#clients tbody tr', { hasText: 'Wiki' });
    await row.locator('button', { hasText: 'Edit' }).click();
    await page.fill('#client-edit-uris', 'https://wiki.example/callback\nhttps://wiki.example/other');
    await page.click('#client-edit-submit');
    await waitForStatus(page, /are saved/);
    assert.equal(await page.locator('#secret-box').isVisible(), false);
    const clients = await call(`${server.admin}/admin/clients`, 'GET', { key: server.key });
    assert.deepEqual(clients.body.clients[0].redirectUris, ['https://wiki.example/callback', 'https://wiki.example/other']);
    await shot(page, 'console-clients.png');

    await page.click('#nav a[data-view="events"]');
    await page.fill('#events-type', 'oauth.client_updated');
    await page.click('#events-submit');
    // The unfiltered rows stay until the filtered answer replaces them.
    await untilEveryRowSays(page, 'oauth.client_updated');
    await page.locator('#events tbody tr', { hasText: `operator:${WRITER}` }).first().waitFor();
    // Pages of ten, newest first, by the API's cursor, none twice.
    await page.fill('#events-type', '');
    await page.selectOption('#events-limit', '10');
    await page.click('#events-submit');
    await page.locator('#events tbody tr', { hasText: 'oauth.client_updated' }).waitFor();
    await shot(page, 'console-events.png');
    const firstPage = await page.locator('#events tbody tr').allTextContents();
    assert.equal(firstPage.length, 10);
    await page.click('#events-next');
    await page.locator('#events tbody tr', { hasText: 'oauth.client_updated' }).waitFor({ state: 'detached' });
    const secondPage = await page.locator('#events tbody tr').allTextContents();
    assert.ok(secondPage.length > 0 && secondPage.every((text) => !firstPage.includes(text)), 'the second page repeats the first');
    const secondTypes = await page.locator('#events tbody tr td:nth-child(2)').allTextContents();
    const trail = await call(`${server.admin}/admin/events?limit=20`, 'GET', { key: server.key });
    assert.deepEqual(secondTypes, trail.body.events.slice(10, 10 + secondTypes.length).map((e) => e.type));
    assert.deepEqual(page.cspViolations, []);
  });

  await clause('21.3 a session that idles out asks for the sign-in again', async () => {
    await page.click('#nav a[data-view="users"]');
    await page.fill('#find-query', WRITER);
    await page.keyboard.press('Enter');
    await page.locator('#results a', { hasText: WRITER }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, (IDLE_SECONDS + 1) * 1000));
    await page.fill('#find-query', READER);
    await page.keyboard.press('Enter');
    await page.locator('#signin-section').waitFor({ state: 'visible' });
    await waitForStatus(page, /session has ended/);
    // And signs in again (a recovery code: this step's code is used).
    await page.fill('#email', WRITER);
    await page.fill('#password', PASSWORD);
    await page.fill('#code', writer.recovery[0]);
    await page.click('#signin-submit');
    await page.locator('#whoami').filter({ hasText: WRITER }).waitFor();
    await page.click('#signout');
    await page.locator('#signin-section').waitFor({ state: 'visible' });
    assert.equal((await page.evaluate(() => fetch('/console/session').then((r) => r.status))), 401);
  });
}

runTest('console', main);
