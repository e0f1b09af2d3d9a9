// What the interoperability tests (interface.md 17.14) share: authd as an
// OpenID provider on a fresh database (SQLite, or PostgreSQL when
// AUTHD_TEST_POSTGRES names a server: scripts/with-postgres.sh), an admin
// key and a user, clients registered through the admin API, a loopback
// redirect URI that catches the authorization response, headless Chromium
// (Debian's, driven by playwright-core) signing in on authd's pages, and
// every process stopped on every path out.
//
// Each test file runs under node's test runner (node:test); `suite()` gives
// it a clean-up stack run after its tests and `check(name, body)`, a test
// with a time limit; `setup(body)` starts what the tests share. A failure
// prints the logs of every process started.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const CHROMIUM = '/usr/bin/chromium';
const TEST_TIMEOUT_MS = 120_000;  // below the CTest TIMEOUT: we clean up ourselves
const POLL_MS = 50;
const FAST_HASHING = ['--argon2-memory-kib', '8', '--argon2-iterations', '1'];
export const PASSWORD = 'correct horse battery staple';

export const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'authd-interop-'));
const cleanups = [];
const children = new Set();
const logs = [];
let failed = false;

// The last resort on any way out: nothing we started outlives us.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export function log(...args) {
  console.log('#', ...args);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Polls `probe` until it returns a truthy value (returned), or throws after
// `timeoutMs` naming `what`.
export async function waitFor(what, probe, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

export function onCleanup(step) {
  cleanups.push(step);
}

// Registers the file's tests: `check(name, body)` runs `body` as one test
// under a time limit; a failure prints the logs of every process started.
export function suite() {
  after(async () => {
    while (cleanups.length > 0) {
      try {
        await within(Promise.resolve().then(cleanups.pop()), 20_000, 'a clean-up step');
      } catch (error) {
        console.error('cleanup:', error.message);
      }
    }
    if (failed || process.env.AUTHD_KEEP_TEST_DIRS) console.error('kept', workDir);
    else fs.rmSync(workDir, { recursive: true, force: true });
  });
  return (name, body) => test(name, { timeout: TEST_TIMEOUT_MS }, () => withLogs(body));
}

// What the file's tests need, started once before them (node:test's
// `before`), under the same time limit and with the logs on failure.
export function setup(body) {
  before(() => withLogs(body), { timeout: TEST_TIMEOUT_MS });
}

async function withLogs(body) {
  try {
    await body();
  } catch (error) {
    failed = true;
    for (const file of logs) {
      if (fs.existsSync(file)) console.error(`--- ${path.basename(file)} ---\n${fs.readFileSync(file, 'utf8')}`);
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------
// Processes.

// Starts a long-running process with its output in <workDir>/<name>.log;
// stopped (SIGTERM, then SIGKILL) when the file's tests end.
export function startProcess(name, command, args, options = {}) {
  const logPath = path.join(workDir, `${name}.log`);
  logs.push(logPath);
  const out = fs.openSync(logPath, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out], cwd: workDir, ...options });
  fs.closeSync(out);
  children.add(child);
  const handle = { name, child, logPath, exited: false, code: null };
  child.on('exit', (code, signal) => {
    handle.exited = true;
    handle.code = code ?? signal;
  });
  child.on('error', (error) => {
    handle.exited = true;
    handle.code = String(error);
  });
  onCleanup(async () => {
    if (handle.exited) return;
    child.kill('SIGTERM');
    try {
      await waitFor(`${name} to exit`, () => handle.exited, 10_000);
    } catch {
      child.kill('SIGKILL');
      await waitFor(`${name} to die`, () => handle.exited, 5_000);
    }
  });
  return handle;
}

export function logOf(handle) {
  try {
    return fs.readFileSync(handle.logPath, 'utf8');
  } catch {
    return '';
  }
}

// Runs `command args` to completion with `input` on stdin (authd's CLI reads
// a password there, never from argv); resolves to {code, stdout, output}.
export function run(command, args, input = '') {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: workDir });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      output += d;
    });
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    // A command that exits before it has read its stdin (a refusal, say)
    // breaks the pipe: its exit code tells how it went, not the EPIPE.
    child.stdin.on('error', () => {});
    child.on('exit', (code) => resolve({ code, stdout, output }));
    child.stdin.end(input);
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Waits until `url` answers at all (any status), or `handle` exits.
export async function waitForHttp(handle, url) {
  await waitFor(`${handle.name} at ${url}`, async () => {
    if (handle.exited) throw new Error(`${handle.name} exited (${handle.code}):\n${logOf(handle)}`);
    try {
      await (await fetch(url, { redirect: 'manual' })).arrayBuffer();
      return true;
    } catch {
      return false;
    }
  });
}

// ---------------------------------------------------------------------------
// authd as an OpenID provider.

// A fresh database and a secret key file (interface.md 17.2: --oidc on
// needs a secret key; on PostgreSQL it must be given).
function freshDatabase() {
  const keyFile = path.join(workDir, 'secret.key');
  fs.writeFileSync(keyFile, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const keyArgs = ['--secret-key-file', keyFile];
  const server = process.env.AUTHD_TEST_POSTGRES;
  if (!server) return { url: `sqlite:${path.join(workDir, 'authd.db')}`, keyArgs, backend: 'SQLite' };
  const name = `authdtest_interop_${process.pid}_${Date.now()}`;
  execFileSync('/usr/bin/psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`,
    '-c', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  return { url: `${server}/${name}`, keyArgs, backend: 'PostgreSQL' };
}

async function portFile(handle, file) {
  return waitFor(`${handle.name}'s port file ${path.basename(file)}`, () => {
    if (handle.exited) throw new Error(`${handle.name} exited (${handle.code}):\n${logOf(handle)}`);
    try {
      const text = fs.readFileSync(file, 'utf8');
      return text.endsWith('\n') ? Number(text.trim()) : 0;
    } catch {
      return 0;
    }
  });
}

// `authd serve --oidc on` with the issuer http://127.0.0.1:PORT (a loopback
// http issuer is allowed, 17.2), then a write admin key made by the CLI.
// Returns {issuer, admin, adminKey, database, authdPath, handle}.
export async function startProvider(authdPath, extraArgs = []) {
  const database = freshDatabase();
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const publicPortFile = path.join(workDir, 'authd.port');
  const adminPortFile = path.join(workDir, 'authd.admin-port');
  const handle = startProcess('authd', authdPath, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', publicPortFile, '--admin-port-file', adminPortFile,
    '--database', database.url, ...database.keyArgs, '--public-url', issuer,
    '--mail-dir', path.join(workDir, 'mail'), '--oidc', 'on', ...FAST_HASHING, ...extraArgs
  ]);
  assert.equal(await portFile(handle, publicPortFile), port);
  const admin = `http://127.0.0.1:${await portFile(handle, adminPortFile)}`;
  await waitFor('authd /healthz', async () => {
    try {
      return (await fetch(`${issuer}/healthz`)).status === 200;
    } catch {
      return false;
    }
  });
  const made = await run(authdPath, ['admin-key', 'create', '--name', 'interop', '--scope', 'write',
    '--database', database.url]);
  assert.equal(made.code, 0, `authd admin-key create: ${made.output}`);
  const adminKey = made.stdout.trim();
  log(`authd on ${issuer} (${database.backend}), management listener ${admin}`);
  return { issuer, admin, adminKey, database, authdPath, handle };
}

// An account made by `authd user add` (the password on stdin).
export async function addUser(provider, email, extra = []) {
  const added = await run(provider.authdPath, ['user', 'add', '--email', email,
    '--database', provider.database.url, ...FAST_HASHING, ...extra], PASSWORD);
  assert.equal(added.code, 0, `authd user add: ${added.output}`);
  return JSON.parse(added.stdout);
}

// Registers a client through the admin API (interface.md 17.3); returns
// the answer (clientId, and clientSecret for a confidential client).
export async function registerClient(provider, body) {
  const response = await fetch(`${provider.admin}/admin/clients`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${provider.adminKey}` },
    body: JSON.stringify(body)
  });
  const text = await response.text();
  assert.equal(response.status, 201, `POST /admin/clients ${JSON.stringify(body)}: ${response.status} ${text}`);
  const client = JSON.parse(text);
  assert.match(client.clientId ?? '', /^[0-9a-f-]{36}$/, `no clientId in ${text}`);
  if (body.type === 'confidential') assert.match(client.clientSecret ?? '', /^authdcs_/, 'no clientSecret');
  return client;
}

// ---------------------------------------------------------------------------
// The relying party's side of the redirect.

// A tiny HTTP server on 127.0.0.1 whose /callback catches the authorization
// response. `redirectUri` is its address; `next()` resolves to the URL of
// the next request it gets there.
export async function startCallbackServer() {
  const waiting = [];
  const arrived = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, `http://${request.headers.host}`);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>callback</title><p id="done">The relying party got the answer.</p>');
    if (url.pathname !== '/callback') return;
    if (waiting.length > 0) waiting.shift()(url);
    else arrived.push(url);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address();
  return {
    port,
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next: () => (arrived.length > 0 ? Promise.resolve(arrived.shift()) : new Promise((r) => waiting.push(r)))
  };
}

// ---------------------------------------------------------------------------
// The browser.

let browser = null;

// A fresh browser context (no cookies): one person at one browser.
export async function newBrowserContext() {
  if (!browser) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync']
    });
    onCleanup(() => browser.close());
  }
  return browser.newContext({ viewport: { width: 1024, height: 720 } });
}

export async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage: true });
  log('screenshot', path.relative(ROOT, file));
}

// The person's part: authd's sign-in page (interface.md 17.5: form#signin,
// #email, #password, #signin-submit) and, for a third-party client, the
// consent page (#allow, or #deny with `consent: 'deny'`). `page` has been
// sent to the authorization URL.
export async function signIn(page, issuer, email, { consent = false, screenshot } = {}) {
  await page.waitForURL((url) => url.href.startsWith(`${issuer}/signin`), { timeout: 15_000 });
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(PASSWORD);
  if (screenshot) await shot(page, `${screenshot}-signin.png`);
  await page.locator('#signin-submit').click();
  if (!consent) return;
  const button = consent === 'deny' ? '#deny' : '#allow';
  await page.locator(button).waitFor({ timeout: 15_000 });
  if (screenshot) await shot(page, `${screenshot}-consent.png`);
  await page.locator(button).click();
}

// Sends a browser to `authorizationUrl` and returns the authorization
// response that reached `callback`. A fresh browser signs in first; with
// `options.context` the given one goes (its cookie session at authd may
// make signing in needless: `options.signedIn`). An error response is
// refused unless `options.errorExpected`.
export async function authorizeInBrowser(provider, callback, authorizationUrl, email, options = {}) {
  const context = options.context ?? await newBrowserContext();
  try {
    const page = await context.newPage();
    const answer = callback.next();
    log('browser: to the authorization endpoint');
    await page.goto(String(authorizationUrl));
    if (!options.signedIn) await signIn(page, provider.issuer, email, options);
    log('browser: signed in, waiting for the redirect');
    const url = await within(answer, 20_000, 'the redirect to the relying party');
    assert.ok(url, `the browser never reached the redirect URI; it is at ${page.url()}`);
    log('browser: at the redirect URI');
    if (!options.errorExpected) {
      assert.equal(url.searchParams.get('error'), null,
        `authorization error: ${url.searchParams.get('error')} ${url.searchParams.get('error_description')}`);
    }
    // The relying party's page loaded before the page goes.
    await page.waitForURL((at) => at.href.startsWith(callback.redirectUri), { waitUntil: 'load', timeout: 15_000 });
    await within(page.close(), 5_000, 'closing the page');
    return url;
  } finally {
    if (!options.context) await within(context.close(), 5_000, 'closing the browser context');
  }
}

// What `promise` resolves to, or null once `ms` have passed (said in the
// log): a step that hangs does not hold up the rest (the browser is closed
// at the end in any case).
async function within(promise, ms, what) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    const outcome = await Promise.race([promise.then((value) => ({ value })), late]);
    if (outcome === null) log(`${what} took over ${ms} ms; going on`);
    return outcome?.value ?? null;
  } finally {
    clearTimeout(timer);  // else the timer keeps the process alive
  }
}
