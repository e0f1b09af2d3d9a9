// What the browser tests share (tests/browser/*.test.mjs): processes that
// are stopped on every path out, authd started with an SMTP receiver
// (tests/support/smtp_sink.py) as its relay, the link read from a received
// mail, headless Chromium (Debian's, driven by playwright-core), and the
// run itself: a time limit, clean-up, and logs printed on failure.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const CHROMIUM = '/usr/bin/chromium';
const PYTHON = '/usr/bin/python3';  // Debian's aiosmtpd is installed for it
const OVERALL_TIMEOUT_MS = 120_000;  // below the CTest TIMEOUT: we clean up ourselves
const POLL_MS = 50;
export const FAST_HASHING = ['--argon2-memory-kib', '8', '--argon2-iterations', '1'];

// ---------------------------------------------------------------------------
// Processes, cleaned up on every path out.

const cleanups = [];
export const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'authd-browser-'));
let testName = 'browser';
let failed = false;

export function log(...args) {
  console.log(`[${testName}]`, ...args);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Polls `probe` until it returns a truthy value (which is returned), or
// throws after `timeoutMs` naming `what`.
export async function waitFor(what, probe, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

// Starts a long-running process with its output in <workDir>/<name>.log;
// it is stopped (SIGTERM, then SIGKILL) when the test ends.
export function startProcess(name, command, args) {
  const logPath = path.join(workDir, `${name}.log`);
  const out = fs.openSync(logPath, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out], cwd: workDir });
  fs.closeSync(out);
  const handle = { name, child, logPath, exited: false, code: null };
  child.on('exit', (code, signal) => {
    handle.exited = true;
    handle.code = code ?? signal;
  });
  child.on('error', (error) => {
    handle.exited = true;
    handle.code = String(error);
  });
  cleanups.push(() => stopProcess(handle));
  return handle;
}

async function stopProcess(handle) {
  if (handle.exited) return;
  handle.child.kill('SIGTERM');
  try {
    await waitFor(`${handle.name} to exit`, () => handle.exited, 10_000);
  } catch {
    handle.child.kill('SIGKILL');
    await waitFor(`${handle.name} to die`, () => handle.exited, 5_000);
  }
}

export function logOf(handle) {
  try {
    return fs.readFileSync(handle.logPath, 'utf8');
  } catch {
    return '';
  }
}

// Waits for a port file ("<port>\n", written when the process listens).
export async function portFrom(handle, portFile) {
  return waitFor(`${handle.name}'s port file`, () => {
    if (handle.exited) throw new Error(`${handle.name} exited (${handle.code}):\n${logOf(handle)}`);
    try {
      const text = fs.readFileSync(portFile, 'utf8');
      return text.endsWith('\n') ? Number(text.trim()) : 0;
    } catch {
      return 0;
    }
  });
}

// A port nobody listens on right now: authd's public URL (the links of its
// mails) must be known before it starts.
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

// Runs `authd <args>` to completion with `input` on stdin (the CLI reads the
// password there, never from argv).
export function runAuthd(authdPath, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(authdPath, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: workDir });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    // A command that exits before it has read its stdin (a refusal, say)
    // breaks the pipe: its exit code tells how it went, not the EPIPE.
    child.stdin.on('error', () => {});
    child.on('exit', (code) => resolve({ code, output }));
    child.stdin.end(input);
  });
}

// ---------------------------------------------------------------------------
// HTTP to authd.

export async function postJson(base, route, body) {
  const response = await fetch(`${base}/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  });
  await response.arrayBuffer();
  return response.status;
}

// ---------------------------------------------------------------------------
// Mail: the one place that knows where received messages are and how the
// link is written in them. Each message is <dir>/<n>.eml, written atomically
// (by the SMTP receiver, or by authd's log transport).

function decodeQuotedPrintable(text) {
  const bytes = [];
  const soft = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

// The MIME leaves of a message as decoded text (multipart or not).
export function textParts(raw) {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const boundary = /^content-type:\s*multipart\/[^\r\n]*boundary="?([^";\r\n]+)"?/im.exec(unfolded);
  if (boundary) {
    const parts = body.split(`--${boundary[1]}`).slice(1);
    return parts.filter((part) => !part.startsWith('--')).flatMap((part) => textParts(part.replace(/^\r?\n/, '')));
  }
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(unfolded)?.[1]?.toLowerCase();
  if (encoding === 'quoted-printable') return [decodeQuotedPrintable(body)];
  if (encoding === 'base64') return [Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')];
  return [body];
}

// Starts the SMTP receiver that stores what it gets in `dir`; returns the
// arguments that make authd deliver to it.
async function startMailReceiver(dir) {
  const portFile = path.join(workDir, 'smtp.port');
  const sink = startProcess('smtp_sink', PYTHON, [
    path.join(ROOT, 'tests/support/smtp_sink.py'), '--mail-dir', dir, '--port-file', portFile
  ]);
  const port = await portFrom(sink, portFile);
  return ['--mail-transport', 'smtp', '--smtp-url', `smtp://127.0.0.1:${port}`, '--smtp-starttls', 'off'];
}

// Waits for message number `count` in `dir` and returns the link to
// `{publicUrl}/{page}#token=...` in the newest message, with its recipient.
export async function linkFromMail(dir, count, publicUrl, page) {
  const names = await waitFor(`mail #${count} in ${dir}`, () => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir).filter((n) => n.endsWith('.eml')).sort();
    } catch {
      return null;
    }
    return entries.length >= count ? entries : null;
  }, 30_000);  // authd delays a mail by up to 2 s (--reset-mail-delay), then polls
  const raw = fs.readFileSync(path.join(dir, names[names.length - 1]), 'utf8');
  const escaped = publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`${escaped}/${page}#token=[A-Za-z0-9_-]+`);
  const links = textParts(raw).map((text) => pattern.exec(text)?.[0]).filter(Boolean);
  assert.ok(links.length > 0, `no ${page} link in the mail:\n${raw}`);
  assert.ok(links.every((link) => link === links[0]), 'the parts of the mail disagree on the link');
  const to = /^To:\s*(.*)$/im.exec(raw)?.[1]?.trim();
  return { link: links[0], to, raw };
}

// The SMTP receiver, then `authd serve <extraArgs>` delivering to it, with
// a fresh SQLite database, the public URL its own address; returns once it
// answers /healthz.
export async function startAuthd(authdPath, extraArgs = []) {
  const mailDir = path.join(workDir, 'received');
  const authdPortFile = path.join(workDir, 'authd.port');
  const database = `sqlite:${path.join(workDir, 'authd.db')}`;
  const mailArgs = await startMailReceiver(mailDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const authd = startProcess('authd', authdPath, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', authdPortFile, '--database', database,
    ...mailArgs, '--public-url', base, ...FAST_HASHING, ...extraArgs
  ]);
  assert.equal(await portFrom(authd, authdPortFile), port);
  await waitFor('authd /healthz', async () => {
    try {
      return (await fetch(`${base}/healthz`)).status === 200;
    } catch {
      return false;
    }
  });
  log('authd on', base, 'mail:', mailArgs.join(' '));
  return { authd, base, database, mailDir };
}

// ---------------------------------------------------------------------------
// The browser.

// `extraArgs` are added to Chromium's command line, `options` to
// playwright's (e.g. ignoreHTTPSErrors for a test's own certificate).
export async function launchBrowser(extraArgs = [], options = {}) {
  const userDataDir = fs.mkdtempSync(path.join(workDir, 'chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...extraArgs],
    viewport: { width: 1024, height: 720 },
    ...options
  });
  cleanups.push(() => context.close());
  return context;
}

export async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage: true });
  log('screenshot', path.relative(ROOT, file));
}

// A page that counts its POSTs to `route` (page.posts) and records any
// Content-Security-Policy report in its console (page.cspViolations).
export async function openPage(context, route, viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.posts = 0;
  page.cspViolations = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith(`/${route}`)) page.posts++;
  });
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy/i.test(text) && !/favicon/i.test(text)) page.cspViolations.push(text);
  });
  page.on('pageerror', (error) => page.cspViolations.push(`page error: ${error.message}`));
  return page;
}

export async function statusText(page) {
  return (await page.locator('#status').textContent()) ?? '';
}

export async function waitForStatus(page, pattern) {
  const status = page.locator('#status');
  await status.filter({ hasText: pattern }).waitFor({ timeout: 10_000 });
  return statusText(page);
}

// ---------------------------------------------------------------------------
// The run: `main` under a time limit, every process stopped on every path
// out, the logs printed on failure. Exits with 0 on success.

async function cleanup() {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    try {
      await step();
    } catch (error) {
      console.error(`[${testName}] cleanup:`, error.message);
    }
  }
  if (failed || process.env.AUTHD_KEEP_TEST_DIRS) {
    console.error(`[${testName}] kept`, workDir);
  } else {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function fail(error) {
  failed = true;
  console.error(`[${testName}] FAILED:`, error?.stack ?? error);
  for (const name of ['authd', 'smtp_sink']) {
    const file = path.join(workDir, `${name}.log`);
    if (fs.existsSync(file)) console.error(`--- ${name}.log ---\n${fs.readFileSync(file, 'utf8')}`);
  }
}

export async function runTest(name, main) {
  testName = name;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      fail(new Error(`interrupted by ${signal}`));
      cleanup().finally(() => process.exit(1));
    });
  }
  const timer = setTimeout(() => {
    fail(new Error(`the whole test took over ${OVERALL_TIMEOUT_MS} ms`));
    cleanup().finally(() => process.exit(1));
  }, OVERALL_TIMEOUT_MS);
  try {
    await main();
  } catch (error) {
    fail(error);
  } finally {
    clearTimeout(timer);
    await cleanup();
  }
  process.exit(failed ? 1 : 0);
}
