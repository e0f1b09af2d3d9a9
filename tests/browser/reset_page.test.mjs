// Browser test of the password-reset flow (interface.md 7.2, 7.3; issue 3).
//
//   node tests/browser/reset_page.test.mjs <path to authd>
//
// Starts its own SMTP receiver (tests/support/smtp_sink.py) and authd
// delivering to it over SMTP, asks for a reset mail, takes the link from the
// received message and opens it in headless Chromium (Debian's, driven by
// playwright-core): the token leaves the address bar, a mismatched
// confirmation is refused without a request, a password equal to the e-mail
// gets the server's message (and does not use the link up), a new password
// typed with the keyboard is accepted, the new password logs in and the old
// one does not, and the used link then shows its own message. Screenshots
// go to test-artifacts/ at the repository root. Every process it starts is
// stopped on every path out. Exit status 0 on success.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const CHROMIUM = '/usr/bin/chromium';
const PYTHON = '/usr/bin/python3';  // Debian's aiosmtpd is installed for it
const OVERALL_TIMEOUT_MS = 120_000;  // below the CTest TIMEOUT: we clean up ourselves
const POLL_MS = 50;

const EMAIL = 'alice@example.com';
const OLD_PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase \u{1F511}';
const FAST_HASHING = ['--argon2-memory-kib', '8', '--argon2-iterations', '1'];

// The page's messages (src/web/reset.js), as the user reads them.
const SUCCESS_TEXT = /your password has been changed/i;
const USED_LINK_TEXT = /already been used, it has expired/i;
const MISMATCH_TEXT = /do not match/i;
const SAME_AS_EMAIL_TEXT = /must not be your e-mail address/i;
const TOO_SHORT_TEXT = /too short/i;

// ---------------------------------------------------------------------------
// Processes, cleaned up on every path out.

const cleanups = [];
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'authd-browser-'));
let failed = false;

function log(...args) {
  console.log('[reset_page]', ...args);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Polls `probe` until it returns a truthy value (which is returned), or
// throws after `timeoutMs` naming `what`.
async function waitFor(what, probe, timeoutMs = 20_000) {
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
function startProcess(name, command, args) {
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

function logOf(handle) {
  try {
    return fs.readFileSync(handle.logPath, 'utf8');
  } catch {
    return '';
  }
}

// Waits for a port file ("<port>\n", written when the process listens).
async function portFrom(handle, portFile) {
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

// Runs `authd <args>` to completion with `input` on stdin (the CLI reads the
// password there, never from argv).
function runAuthd(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(AUTHD, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: workDir });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
    child.stdin.end(input);
  });
}

// ---------------------------------------------------------------------------
// HTTP to authd.

async function postJson(base, route, body) {
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
function textParts(raw) {
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
  return {
    authdArgs: ['--mail-transport', 'smtp', '--smtp-url', `smtp://127.0.0.1:${port}`, '--smtp-starttls', 'off']
  };
}

// Waits for message number `count` in `dir` and returns the reset link of
// the newest message, with its recipient.
async function resetLinkFromMail(dir, count, publicUrl) {
  const names = await waitFor(`mail #${count} in ${dir}`, () => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir).filter((n) => n.endsWith('.eml')).sort();
    } catch {
      return null;
    }
    return entries.length >= count ? entries : null;
  }, 30_000);  // authd delays a reset mail by up to 2 s (--reset-mail-delay), then polls
  const raw = fs.readFileSync(path.join(dir, names[names.length - 1]), 'utf8');
  const escaped = publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`${escaped}/reset#token=[A-Za-z0-9_-]+`);
  const links = textParts(raw).map((text) => pattern.exec(text)?.[0]).filter(Boolean);
  assert.ok(links.length > 0, `no reset link in the mail:\n${raw}`);
  assert.ok(links.every((link) => link === links[0]), 'the parts of the mail disagree on the link');
  const to = /^To:\s*(.*)$/im.exec(raw)?.[1]?.trim();
  return { link: links[0], to, raw };
}

// ---------------------------------------------------------------------------
// The browser.

async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage: true });
  log('screenshot', path.relative(ROOT, file));
}

// A page that records its POSTs to reset and any Content-Security-Policy
// report in its console.
async function openPage(context, viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.resetPosts = 0;
  page.cspViolations = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/reset')) page.resetPosts++;
  });
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy/i.test(text) && !/favicon/i.test(text)) page.cspViolations.push(text);
  });
  page.on('pageerror', (error) => page.cspViolations.push(`page error: ${error.message}`));
  return page;
}

async function statusText(page) {
  return (await page.locator('#status').textContent()) ?? '';
}

async function waitForStatus(page, pattern) {
  const status = page.locator('#status');
  await status.filter({ hasText: pattern }).waitFor({ timeout: 10_000 });
  return statusText(page);
}

// Types into the focused field, Tab to the confirmation, types, Enter: the
// form works without a mouse.
async function typeAndSubmit(page, password, confirmation) {
  await page.locator('#password').focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(password);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'confirmation', 'Tab goes to the confirmation field');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(confirmation);
  await page.keyboard.press('Enter');
}

// ---------------------------------------------------------------------------

async function main() {
  assert.ok(AUTHD, 'usage: node reset_page.test.mjs <path to authd>');
  const mailDir = path.join(workDir, 'received');
  const authdPortFile = path.join(workDir, 'authd.port');
  const database = `sqlite:${path.join(workDir, 'authd.db')}`;

  // 1. The SMTP receiver, then authd delivering to it.
  const mailer = await startMailReceiver(mailDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const authd = startProcess('authd', AUTHD, [
    'serve', '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', authdPortFile, '--database', database,
    ...mailer.authdArgs, '--public-url', base, ...FAST_HASHING
  ]);
  assert.equal(await portFrom(authd, authdPortFile), port);
  await waitFor('authd /healthz', async () => {
    try {
      return (await fetch(`${base}/healthz`)).status === 200;
    } catch {
      return false;
    }
  });
  log('authd on', base, 'mail:', mailer.authdArgs.join(' '));

  const added = await runAuthd(['user', 'add', '--email', EMAIL, '--database', database, ...FAST_HASHING], OLD_PASSWORD);
  assert.equal(added.code, 0, `user add failed: ${added.output}`);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: OLD_PASSWORD }), 200);

  // 2. The mail, received over SMTP, with the link.
  assert.equal(await postJson(base, 'forgot', { email: EMAIL }), 200);
  const mail = await resetLinkFromMail(mailDir, 1, base);
  assert.match(mail.to ?? '', /alice@example\.com/);
  log('link received:', mail.link.replace(/token=.*/, 'token=<redacted>'));

  const userDataDir = fs.mkdtempSync(path.join(workDir, 'chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1024, height: 720 }
  });
  cleanups.push(() => context.close());

  // 3. The link opens the page; the token leaves the address bar.
  const page = await openPage(context);
  await page.goto(mail.link);
  await page.locator('#reset-form').waitFor({ state: 'visible' });
  assert.equal(page.url(), `${base}/reset`, 'the fragment is removed from the address bar');
  assert.equal(await page.evaluate(() => window.location.hash), '');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'password', 'the first field has the focus');
  assert.equal(await page.getByLabel('New password', { exact: true }).getAttribute('autocomplete'), 'new-password');
  assert.equal(await page.getByLabel('Repeat the new password', { exact: true }).getAttribute('autocomplete'), 'new-password');

  // 4. Client-side checks: no request is sent.
  await typeAndSubmit(page, NEW_PASSWORD, `${NEW_PASSWORD}!`);
  log('mismatch:', await waitForStatus(page, MISMATCH_TEXT));
  assert.equal(await page.locator('#confirmation').getAttribute('aria-invalid'), 'true');
  await shot(page, 'reset-page-mismatch.png');
  await typeAndSubmit(page, 'short', 'short');
  log('too short:', await waitForStatus(page, TOO_SHORT_TEXT));
  assert.equal(page.resetPosts, 0, 'client-side checks send nothing');

  // 5. A rule only the server knows: the password equals the e-mail. The
  //    400 does not use the link up (interface.md 7.2).
  await typeAndSubmit(page, EMAIL.toUpperCase(), EMAIL.toUpperCase());
  log('same as e-mail:', await waitForStatus(page, SAME_AS_EMAIL_TEXT));
  assert.equal(page.resetPosts, 1);
  assert.equal(await page.locator('#reset-form').isVisible(), true, 'the form stays for another try');

  // 6. The new password, by keyboard: success.
  await typeAndSubmit(page, NEW_PASSWORD, NEW_PASSWORD);
  log('success:', await waitForStatus(page, SUCCESS_TEXT));
  assert.equal(page.resetPosts, 2);
  assert.equal(await page.locator('#reset-form').isVisible(), false, 'the form is gone after success');
  assert.equal(await page.locator('h1').textContent(), 'Password changed');
  await shot(page, 'reset-page-success.png');
  assert.deepEqual(page.cspViolations, []);

  // 7. The new password logs in, the old one does not.
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: NEW_PASSWORD }), 200);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: OLD_PASSWORD }), 401);

  // 8. The same link again, on a phone-sized screen: the used-link message.
  const again = await openPage(context, { width: 360, height: 740 });
  await again.goto(mail.link);
  await again.locator('#reset-form').waitFor({ state: 'visible' });
  await shot(again, 'reset-page-form-narrow.png');
  await typeAndSubmit(again, 'yet another passphrase', 'yet another passphrase');
  log('used link:', await waitForStatus(again, USED_LINK_TEXT));
  assert.equal(await again.locator('#reset-form').isVisible(), false);
  assert.equal(await again.locator('h1').textContent(), 'This link cannot be used');
  await shot(again, 'reset-page-used-link.png');
  const fits = await again.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(fits, 'no horizontal scrolling on a narrow screen');
  assert.deepEqual(again.cspViolations, []);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: NEW_PASSWORD }), 200,
    'the refused second reset changed nothing');

  // 9. The page without a token says so and shows no form.
  const bare = await openPage(context, { width: 360, height: 740 });
  await bare.goto(`${base}/reset`);
  log('no token:', await waitForStatus(bare, /does not contain a reset code/i));
  assert.equal(await bare.locator('#reset-form').isVisible(), false);
  await shot(bare, 'reset-page-missing-token.png');

  // 10. Answers this server does not give on demand, played by the browser
  //     in place of the server: each has its own message, and the form
  //     stays for another try.
  const stubbed = await openPage(context);
  const answers = [
    { reply: { status: 429, body: { code: 429, message: 'Too Many Requests' } }, text: /too many attempts/i },
    { reply: { status: 503, body: { code: 503, message: 'Service Unavailable' } }, text: /try again in a moment/i },
    { reply: { status: 500, body: { code: 500, message: 'Internal Server Error' } }, text: /went wrong on our side/i },
    {
      reply: { status: 400, body: { code: 400, message: 'Bad Request', detail: 'password: must be at most 255 characters' } },
      text: /too long/i
    },
    { reply: 'network', text: /could not reach the server/i }
  ];
  let answer = null;
  await stubbed.route('**/reset', (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    assert.equal(route.request().headers()['content-type'], 'application/json');
    const sent = JSON.parse(route.request().postData());
    assert.deepEqual(Object.keys(sent).sort(), ['password', 'token']);
    assert.equal(sent.token, 'authdrt_stubbed');
    if (answer.reply === 'network') return route.abort('connectionrefused');
    return route.fulfill({
      status: answer.reply.status,
      contentType: 'application/json',
      body: JSON.stringify(answer.reply.body)
    });
  });
  await stubbed.goto(`${base}/reset#token=authdrt_stubbed`);
  await stubbed.locator('#reset-form').waitFor({ state: 'visible' });
  for (answer of answers) {
    await typeAndSubmit(stubbed, 'a fine passphrase', 'a fine passphrase');
    log(`${answer.reply.status ?? answer.reply}:`, await waitForStatus(stubbed, answer.text));
    assert.equal(await stubbed.locator('#reset-form').isVisible(), true);
    assert.equal(await stubbed.locator('#submit').isEnabled(), true);
  }
  assert.equal(stubbed.resetPosts, answers.length);

  assert.equal(authd.exited, false, `authd exited:\n${logOf(authd)}`);
  log('ok');
}

async function cleanup() {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    try {
      await step();
    } catch (error) {
      console.error('[reset_page] cleanup:', error.message);
    }
  }
  if (failed || process.env.AUTHD_KEEP_TEST_DIRS) {
    console.error('[reset_page] kept', workDir);
  } else {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function fail(error) {
  failed = true;
  console.error('[reset_page] FAILED:', error?.stack ?? error);
  for (const name of ['authd', 'smtp_sink']) {
    const file = path.join(workDir, `${name}.log`);
    if (fs.existsSync(file)) console.error(`--- ${name}.log ---\n${fs.readFileSync(file, 'utf8')}`);
  }
}

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
