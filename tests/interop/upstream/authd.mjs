// What the upstream sign-in tests (interface.md 18) share on authd's side:
// authd started with [[upstream]] tables in its configuration file (18.1),
// on a fresh database (SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is
// set), with --oidc on (its cookie session is how a browser is signed in);
// the browser's part at the upstream pages of the doubles; and what the
// tests read back: who the browser's session is, the account's identities,
// the audit trail.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { totp } from '../../support/totp.mjs';
import { PASSWORD, freePort, log, logOf, run, startProcess, waitFor, workDir } from '../support.mjs';

const FAST_HASHING = ['--argon2-memory-kib', '8', '--argon2-iterations', '1'];
export const COOKIE = 'authd_session';  // 17.2: --oidc on, loopback http:// public URL
// The query parameter of GET /signin/{name} naming where to go afterwards
// (18.2: a path relative to the public URL).
export const RETURN_PARAM = 'return';

function freshDatabase(name) {
  const server = process.env.AUTHD_TEST_POSTGRES;
  if (!server) return { url: `sqlite:${path.join(workDir, `${name}.db`)}`, backend: 'SQLite' };
  const database = `authdtest_upstream_${name.replace(/[^a-z0-9_]/g, '_')}_${process.pid}_${Date.now()}`;
  execFileSync('/usr/bin/psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`,
    '-c', `CREATE DATABASE ${database}`], { stdio: 'pipe' });
  return { url: `${server}/${database}`, backend: 'PostgreSQL' };
}

function tomlValue(value) {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  return JSON.stringify(String(value));  // a TOML basic string: JSON's escapes are TOML's
}

export function upstreamToml(upstreams) {
  return upstreams.map((table) => ['[[upstream]]',
    ...Object.entries(table).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} = ${tomlValue(v)}`)].join('\n'))
    .join('\n\n') + '\n';
}

// The [[upstream]] table of an OpenID Connect provider (corp_idp or evil_idp).
export function oidcUpstream(idp, { name, label, signup = true, scopes = ['openid', 'email', 'profile'] }) {
  return {
    name, kind: 'oidc', issuer: idp.issuer, 'client-id': idp.clientId,
    'client-secret-file': idp.clientSecretFile, scopes, label, signup
  };
}

// The [[upstream]] table of the GitHub-shaped double (kind oauth2, GitHub's
// claim mapping being the default one).
export function githubUpstream(gh, { name = 'github', label = 'GitHub', signup = true } = {}) {
  return {
    name, kind: 'oauth2', 'authorization-endpoint': gh.authorizationEndpoint,
    'token-endpoint': gh.tokenEndpoint, 'userinfo-endpoint': gh.userinfoEndpoint,
    'emails-endpoint': gh.emailsEndpoint, 'client-id': gh.clientId,
    'client-secret-file': gh.clientSecretFile, scopes: ['read:user', 'user:email'], label, signup
  };
}

async function portFile(handle, file) {
  return waitFor(`${handle.name}'s port file`, () => {
    if (handle.exited) throw new Error(`${handle.name} exited (${handle.code}):\n${logOf(handle)}`);
    try {
      const text = fs.readFileSync(file, 'utf8');
      return text.endsWith('\n') ? Number(text.trim()) : 0;
    } catch {
      return 0;
    }
  });
}

// A port for authd, chosen before the doubles start (they must know its
// redirect URIs) and the public URL it gives.
export async function reserveAuthd(name = 'authd') {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  return { name, port, base, callback: (provider) => `${base}/signin/${provider}/callback` };
}

// `authd serve --oidc on --config <[[upstream]] tables>` on the reserved
// port; then a write admin key. Returns {base, issuer, admin, adminKey,
// database, authdPath, handle, mailDir, name}.
export async function startAuthd(authdPath, reserved, upstreams, extraArgs = []) {
  const { name, port, base } = reserved;
  const database = freshDatabase(name);
  const keyFile = path.join(workDir, `${name}.key`);
  fs.writeFileSync(keyFile, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const configFile = path.join(workDir, `${name}.toml`);
  fs.writeFileSync(configFile, upstreamToml(upstreams));
  const publicPortFile = path.join(workDir, `${name}.port`);
  const adminPortFile = path.join(workDir, `${name}.admin-port`);
  const mailDir = path.join(workDir, `${name}-mail`);
  const handle = startProcess(name, authdPath, [
    'serve', '--config', configFile, '--listen', `127.0.0.1:${port}`, '--admin-listen', '127.0.0.1:0',
    '--port-file', publicPortFile, '--admin-port-file', adminPortFile,
    '--database', database.url, '--secret-key-file', keyFile, '--public-url', base,
    '--mail-dir', mailDir, '--oidc', 'on', ...FAST_HASHING, ...extraArgs
  ]);
  assert.equal(await portFile(handle, publicPortFile), port);
  const admin = `http://127.0.0.1:${await portFile(handle, adminPortFile)}`;
  await waitFor(`${name} /healthz`, async () => {
    try {
      return (await fetch(`${base}/healthz`)).status === 200;
    } catch {
      return false;
    }
  });
  const made = await run(authdPath, ['admin-key', 'create', '--name', 'uptests', '--scope', 'write',
    '--database', database.url]);
  assert.equal(made.code, 0, `authd admin-key create: ${made.output}`);
  log(`${name} on ${base} (${database.backend}) with upstreams ${upstreams.map((u) => u.name).join(', ')}`);
  return { name, base, issuer: base, admin, adminKey: made.stdout.trim(), database, authdPath, handle, mailDir };
}

// `authd user add` (the password on stdin), then `verify-email` when asked.
export async function addUser(authd, email, { verified = false, password = PASSWORD } = {}) {
  const added = await run(authd.authdPath, ['user', 'add', '--email', email,
    '--database', authd.database.url, ...FAST_HASHING], password);
  assert.equal(added.code, 0, `authd user add: ${added.output}`);
  if (!verified) return JSON.parse(added.stdout);
  const done = await run(authd.authdPath, ['user', 'verify-email', '--email', email, '--database', authd.database.url]);
  assert.equal(done.code, 0, `authd user verify-email: ${done.output}`);
  return JSON.parse(done.stdout);
}

// The audit trail's events of `type` (newest first).
export async function events(authd, type) {
  const out = await run(authd.authdPath, ['events', '--type', type, '--database', authd.database.url]);
  assert.equal(out.code, 0, `authd events: ${out.output}`);
  return out.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

export async function adminGet(authd, route) {
  const response = await fetch(`${authd.admin}${route}`, { headers: { Authorization: `Bearer ${authd.adminKey}` } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export async function userByEmail(authd, email) {
  const { status, body } = await adminGet(authd, `/admin/users?email=${encodeURIComponent(email)}`);
  assert.equal(status, 200, `GET /admin/users?email: ${status}`);
  const list = body.users ?? body.data ?? body;
  return list.find((u) => u.email === email) ?? null;
}

// The links of an account, as the admin API lists them (18.4).
export async function identitiesOf(authd, userId) {
  const { status, body } = await adminGet(authd, `/admin/users/${userId}/identities`);
  assert.equal(status, 200, `GET /admin/users/${userId}/identities: ${status} ${JSON.stringify(body)}`);
  return body.identities ?? body;
}

// The browser's session at authd: the account /me answers for its cookie,
// or null when it has none (or a dead one).
export async function sessionUser(context, authd) {
  const cookie = (await context.cookies(authd.base)).find((c) => c.name === COOKIE);
  if (!cookie || !cookie.value) return null;
  const response = await fetch(`${authd.base}/me`, { headers: { Authorization: `Bearer ${cookie.value}` } });
  if (response.status !== 200) return null;
  return response.json();
}

export function sessionToken(cookies) {
  return cookies.find((c) => c.name === COOKIE)?.value ?? null;
}

// ---------------------------------------------------------------------------
// A second factor (TOTP, RFC 6238, interface.md 12.3), to enrol and answer.

async function postJson(base, route, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${base}/${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

// Gives the account of `email` (with PASSWORD) a confirmed TOTP factor (12.1).
export async function enrolTotp(authd, email) {
  const login = await postJson(authd.base, 'login', { email, password: PASSWORD });
  assert.equal(login.status, 200, `POST /login: ${JSON.stringify(login.body)}`);
  const token = /^Bearer (\S+)$/.exec(login.headers.get('authorization') ?? '')?.[1];
  const enrolled = await postJson(authd.base, 'mfa/totp', { password: PASSWORD }, token);
  assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
  const confirmed = await postJson(authd.base, 'mfa/totp/confirm', { code: totp(enrolled.body.secret) }, token);
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return enrolled.body.secret;
}

// ---------------------------------------------------------------------------
// The browser at the upstreams' pages.

// Waits for the callback's answer at authd while `action` runs (the
// navigation that ends there); returns {status, location, url}.
export async function callbackAnswer(page, authd, provider, action) {
  const answered = page.waitForResponse((r) => r.url().startsWith(`${authd.base}/signin/${provider}/callback`),
    { timeout: 30_000 });
  await action();
  const response = await answered;
  const answer = { status: response.status(), location: response.headers().location ?? null, url: response.url() };
  await page.waitForLoadState('load');
  log(`callback of ${provider}: ${answer.status} ${answer.location ?? ''}`);
  return answer;
}

// The company IdP's login page (corp_idp.mjs), once the browser is there.
export async function corpLogin(page, idp, login, password = 'corp password') {
  await page.waitForURL((url) => url.href.startsWith(`${idp.issuer}/interaction/`), { timeout: 15_000 });
  await page.locator('#login').fill(login);
  await page.locator('#password').fill(password);
  await page.locator('#idp-submit').click();
}

// GitHub's authorization page (github_double.mjs).
export async function githubAuthorize(page, gh, login) {
  await page.waitForURL((url) => url.href.startsWith(gh.authorizationEndpoint), { timeout: 15_000 });
  await page.locator('#login').fill(login);
  await page.locator('#authorize').click();
}

// A whole sign-in at authd through `provider` in `page`: GET
// /signin/{provider}, the upstream's page (`atUpstream(page)`), then the
// callback's answer.
export async function signInThrough(page, authd, provider, atUpstream, query = '') {
  return callbackAnswer(page, authd, provider, async () => {
    await page.goto(`${authd.base}/signin/${provider}${query}`);
    if (atUpstream) await atUpstream(page);
  });
}

// A password sign-in from a page of authd's origin (the cookie session of
// 13.5 is set by the answer).
export async function passwordSignIn(page, authd, email, password = PASSWORD) {
  if (!page.url().startsWith(authd.base)) await page.goto(`${authd.base}/signin`);
  const status = await page.evaluate(async ([e, p]) => (await fetch('/login', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: e, password: p })
  })).status, [email, password]);
  assert.equal(status, 200, `POST /login for ${email}`);
}

// POST /identities/{provider} from a signed-in page (18.4: starts a link);
// returns the status and the body.
export async function startLink(page, authd, provider) {
  if (!page.url().startsWith(authd.base)) await page.goto(`${authd.base}/signin`);
  return page.evaluate(async (name) => {
    const response = await fetch(`/identities/${name}`, { method: 'POST' });
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body, location: response.headers.get('location') };
  }, provider);
}
