// Attacks on sign-in with upstream identity providers (interface.md 18.2,
// 18.3), each its own test, in Chromium against authd with two upstreams:
// npm's oidc-provider as the company's IdP (`corp`) and an "evil" provider
// that forges ID tokens on demand (`evil`, tests/interop/upstream/evil_idp.mjs,
// a test double). Account pre-hijacking (an unverified account made by
// someone else, a pending sign-up of someone else's password), an upstream
// that does not assert a verified e-mail, an upstream that changes a user's
// e-mail, a replayed state, a replayed nonce, a callback delivered to
// another browser, ID tokens of another issuer or audience, `alg: none`,
// HS256 keyed with the provider's public key, expired, signed by an unknown
// key or altered, an absolute or protocol-relative return path, and markup
// in an upstream's error. The evil provider's honest token signing in first
// shows that each refusal is the forgery's.
//
//   node tests/interop/upstream_attacks.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { PASSWORD, newBrowserContext, onCleanup, setup, shot, suite, waitFor } from './support.mjs';
import {
  COOKIE, RETURN_PARAM, addUser, callbackAnswer, corpLogin, identitiesOf, oidcUpstream, passwordSignIn,
  reserveAuthd, sessionUser, signInThrough, startAuthd, userByEmail
} from './upstream/authd.mjs';
import { startCorpIdp, startEvilIdp } from './upstream/launch.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const check = suite();

let authd;
let corp;
let evil;

setup(async () => {
  const reserved = await reserveAuthd();
  corp = await startCorpIdp({ redirectUris: [reserved.callback('corp')] });
  evil = await startEvilIdp({ redirectUris: [reserved.callback('evil')] });
  authd = await startAuthd(AUTHD, reserved, [
    oidcUpstream(corp, { name: 'corp', label: 'Company account', signup: true }),
    oidcUpstream(evil, { name: 'evil', label: 'Evil IdP', signup: true })
  ], ['--signup', 'open', '--reset-mail-delay', '1ms']);
});

async function freshPage() {
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  return { context, page: await context.newPage() };
}

// A sign-in through the evil provider, which answers at once (no page).
async function evilSignIn(mode) {
  await evil.setMode(mode);
  const { context, page } = await freshPage();
  const answer = await signInThrough(page, authd, 'evil', null);
  return { context, page, answer, me: await sessionUser(context, authd) };
}

function setsSession(response) {
  return response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=`) && !c.startsWith(`${COOKIE}=;`));
}

// The newest sign-up link mailed to `email` (the log transport's .eml files).
async function signupToken(mailDir, email) {
  return waitFor(`a sign-up mail to ${email}`, () => {
    let names = [];
    try {
      names = fs.readdirSync(mailDir).filter((n) => n.endsWith('.eml')).sort().reverse();
    } catch {
      return null;
    }
    for (const name of names) {
      const raw = fs.readFileSync(path.join(mailDir, name), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
      if (!raw.includes(email)) continue;
      const token = /\/verify#token=([A-Za-z0-9_-]+)/.exec(raw)?.[1];
      if (token) return token;
    }
    return null;
  }, 30_000);
}

// ---------------------------------------------------------------------------
// The evil provider's honest answer: the control for every forgery below.

check('Interface_18_2 the evil IdP\'s honest ID token signs in, authd having sent state, nonce and PKCE S256 (control)', async () => {
  const { me, page } = await evilSignIn('good');
  await shot(page, 'upstream-evil-good.png');
  assert.ok(me, 'the honest token did not sign in: the forgery tests below would prove nothing');
  assert.equal(me.email, 'mallory@evil.example');
  const seen = await evil.seen();
  assert.equal(seen.authorize.code_challenge_method, 'S256');
  assert.ok(seen.authorize.has_nonce && seen.authorize.has_state, JSON.stringify(seen.authorize));
  assert.ok(seen.token.has_verifier, 'no code_verifier at the token endpoint');
});

for (const [mode, what] of [
  ['wrong-iss', 'Interface_18_2 an ID token from another issuer is refused'],
  ['wrong-aud', 'Interface_18_2 an ID token for another audience is refused'],
  ['alg-none', 'Interface_18_2 an ID token with alg none is refused'],
  ['hs256-public-key', 'Interface_18_2 an ID token signed HS256 with the provider\'s public key is refused'],
  ['expired', 'Interface_18_2 an expired ID token is refused'],
  ['wrong-nonce', 'Interface_18_2 an ID token with another nonce is refused'],
  ['no-nonce', 'Interface_18_2 an ID token without the nonce is refused'],
  ['unknown-kid', 'Interface_18_2 an ID token signed by a key the JWKS does not hold is refused'],
  ['bad-signature', 'Interface_18_2 an ID token altered after signing is refused']
]) {
  check(what, async () => {
    const { me, answer, page } = await evilSignIn(mode);
    await shot(page, `upstream-evil-${mode}.png`);
    assert.equal(me, null, `${mode}: signed in as ${me?.email}`);
    assert.ok(answer.status >= 300, `${mode}: the callback answered ${answer.status}`);
  });
}

check('Interface_18_2 nonce replayed: an ID token of an earlier flow, valid in every other way, is refused', async () => {
  // The honest flow of the control test made the first token; the provider
  // now hands that one out again, its nonce the earlier flow's.
  const { me } = await evilSignIn('replay-first');
  assert.equal(me, null, `an earlier flow's ID token signed in as ${me?.email}`);
});

check('Interface_18_2 markup in an upstream\'s error is never reflected unescaped', async () => {
  const { page, me } = await evilSignIn('error-markup');
  await shot(page, 'upstream-evil-error-markup.png');
  assert.equal(me, null);
  assert.equal(await page.locator('#injected').count(), 0, 'the upstream\'s markup is on authd\'s page');
  assert.notEqual(await page.title(), 'pwned', 'the upstream\'s script ran');
  await evil.setMode('good');
});

// ---------------------------------------------------------------------------
// The flow's bindings: state, the browser binder cookie.

// The Cookie header the browser of `context` sends authd for the flow: its
// binder cookie (authd_upstream, set by GET /signin/{name}).
async function binderCookie(context) {
  const binder = (await context.cookies(authd.base)).find((c) => c.name === 'authd_upstream');
  return binder ? `${binder.name}=${binder.value}` : '';
}

// The victim's sign-in through corp as far as the callback URL, by a user
// agent of our own (a cookie jar, redirects followed by hand), which never
// delivers it: the URL as it would leak (a log, a Referer, a shared link).
// Returns the URL and the binder cookie of the victim's browser.
async function leakedCallback(login) {
  const jar = new Map();  // name -> value: every cookie to every request (authd and corp share 127.0.0.1)
  const send = async (url, init = {}) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, Cookie: cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    return response;
  };
  let response = await send(`${authd.base}/signin/corp`);
  const binder = `authd_upstream=${jar.get('authd_upstream') ?? ''}`;
  let url = new URL(response.headers.get('location'));
  for (let hops = 0; hops < 10 && !url.href.startsWith(`${authd.base}/signin/corp/callback`); hops++) {
    if (url.pathname.startsWith('/interaction/') && !url.pathname.endsWith('/login')) {
      await (await send(url.href)).arrayBuffer();
      response = await send(`${url.origin}${url.pathname}/login`, {
        method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ login, password: 'corp password' }).toString()
      });
    } else {
      response = await send(url.href);
    }
    await response.arrayBuffer();
    assert.ok(response.headers.get('location'), `no redirect at ${url.href} (${response.status})`);
    url = new URL(response.headers.get('location'), url);
  }
  assert.ok(url.href.startsWith(`${authd.base}/signin/corp/callback`), `never reached the callback: ${url.href}`);
  return { url: url.href, cookie: binder };
}

check('Interface_18_2 state replayed: a callback already used never signs in again, even with its binder cookie', async () => {
  const { context, page } = await freshPage();
  let callbackUrl = null;
  page.on('request', (request) => {
    if (request.url().startsWith(`${authd.base}/signin/corp/callback`)) callbackUrl ??= request.url();
  });
  let binder = '';
  await callbackAnswer(page, authd, 'corp', async () => {
    await page.goto(`${authd.base}/signin/corp`);
    binder = await binderCookie(context);  // the callback's answer clears it
    await corpLogin(page, corp, 'alice');
  });
  assert.ok(await sessionUser(context, authd), 'the first use did not sign in');
  assert.ok(callbackUrl && binder, `the callback ${callbackUrl} and the binder cookie ${binder}`);
  const replay = await fetch(callbackUrl, { redirect: 'manual', headers: { Cookie: binder } });
  await replay.arrayBuffer();
  assert.equal(setsSession(replay), false, `the replay opened a session (${replay.status})`);
  assert.ok(replay.status >= 400, `the replay answered ${replay.status}`);
});

check('Interface_18_2 a callback from another browser (no cookie, another flow\'s cookie) signs nobody in', async () => {
  const stolen = await leakedCallback('alice');

  const bare = await fetch(stolen.url, { redirect: 'manual' });
  await bare.arrayBuffer();
  assert.equal(setsSession(bare), false, `without the binder cookie (${bare.status})`);

  const attacker = await freshPage();
  await attacker.page.goto(`${authd.base}/signin/corp`);  // a flow of its own: its own binder cookie
  await attacker.page.waitForURL((u) => u.href.startsWith(`${corp.issuer}/interaction/`));
  assert.ok(await binderCookie(attacker.context), 'the attacker\'s browser has no binder cookie of its own');
  await callbackAnswer(attacker.page, authd, 'corp', () => attacker.page.goto(stolen.url));
  assert.equal(await sessionUser(attacker.context, authd), null, 'another browser signed in with the stolen callback');

  // The control: the victim's own binder cookie would have been accepted
  // (the refusals above are the binding's, not a spoilt callback's) if the
  // flow was still unused; the attempts above may have used it, so only a
  // fresh leak shows it.
  const fresh = await leakedCallback('alice');
  const owner = await fetch(fresh.url, { redirect: 'manual', headers: { Cookie: fresh.cookie } });
  await owner.arrayBuffer();
  assert.equal(setsSession(owner), true, `the victim's own browser was refused (${owner.status})`);
});

check('Interface_18_2 an absolute or protocol-relative return path never leaves authd', async () => {
  const { page } = await freshPage();
  const attempts = ['https://evil.example/steal', '//evil.example/steal', '/\\evil.example/steal',
    '\\\\evil.example/steal', '/%2F%2Fevil.example/steal', 'javascript:alert(1)', 'http:evil.example'];
  let loggedIn = false;
  for (const target of attempts) {
    const query = `?${RETURN_PARAM}=${encodeURIComponent(target)}`;
    const start = await fetch(`${authd.base}/signin/corp${query}`, { redirect: 'manual' });
    await start.arrayBuffer();
    if (start.status >= 400) continue;  // refused at the start: fine
    const answer = await signInThrough(page, authd, 'corp', loggedIn ? null : (p) => corpLogin(p, corp, 'alice'), query);
    loggedIn = true;
    if (answer.location) {
      assert.equal(new URL(answer.location, authd.base).origin, authd.base, `${target} led to ${answer.location}`);
    }
    assert.equal(new URL(page.url()).origin, authd.base, `${target}: the browser is at ${page.url()}`);
  }
});

// ---------------------------------------------------------------------------
// Linking (18.3): account pre-hijacking and unverified e-mails.

check('Interface_18_3 pre-hijacking: an account made with the e-mail by someone else, never verified, is not taken over through the IdP', async () => {
  const planted = await addUser(authd, 'victim@corp.example', { verified: false });  // the attacker knows PASSWORD
  await corp.setAccount('victim', { email: 'victim@corp.example', email_verified: true, name: 'The Victim' });
  const victim = await freshPage();
  await signInThrough(victim.page, authd, 'corp', (p) => corpLogin(p, corp, 'victim'));
  const me = await sessionUser(victim.context, authd);
  assert.notEqual(me?.id, planted.id, 'the victim was signed in to the planted account');
  assert.deepEqual(await identitiesOf(authd, planted.id), [], 'the victim\'s identity went to the planted account');
  // The attacker's password still opens an account with no link to the victim.
  const attacker = await freshPage();
  await passwordSignIn(attacker.page, authd, 'victim@corp.example', PASSWORD);
  assert.deepEqual(await identitiesOf(authd, (await sessionUser(attacker.context, authd)).id), []);
});

check('Interface_18_3 pre-hijacking by sign-up: someone else\'s pending sign-up dies when the owner signs up through the IdP', async () => {
  const email = 'victim2@corp.example';
  const signup = await fetch(`${authd.base}/signup`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'attacker password 1' })
  });
  assert.equal(signup.status, 200);
  const token = await signupToken(authd.mailDir, email);
  await corp.setAccount('victim2', { email, email_verified: true });
  const owner = await freshPage();
  await signInThrough(owner.page, authd, 'corp', (p) => corpLogin(p, corp, 'victim2'));
  const me = await sessionUser(owner.context, authd);
  assert.ok(me, 'the owner did not get an account through the IdP');
  // The link of the attacker's sign-up, even if the owner follows it.
  const verify = await fetch(`${authd.base}/verify`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token, password: 'attacker password 1' })
  });
  assert.equal(verify.status, 401, 'the attacker\'s pending sign-up completed on the owner\'s address');
  const login = await fetch(`${authd.base}/login`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'attacker password 1' })
  });
  assert.equal(login.status, 401, 'the attacker\'s password opens the owner\'s account');
});

check('Interface_18_3 an upstream that does not assert a verified e-mail (false, or absent) never reaches an existing account', async () => {
  const frank = await addUser(authd, 'frank@corp.example', { verified: true });
  await corp.setAccount('frank-false', { email: 'frank@corp.example', email_verified: false });
  await corp.setAccount('frank-absent', { email: 'frank@corp.example' });
  for (const login of ['frank-false', 'frank-absent']) {
    const { context, page } = await freshPage();
    await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, login));
    const me = await sessionUser(context, authd);
    assert.notEqual(me?.id, frank.id, `${login} signed in to the account of that e-mail`);
  }
  assert.deepEqual(await identitiesOf(authd, frank.id), []);
});

check('Interface_18_3 an upstream that changes a user\'s e-mail: the link signs in its own account, never the account of the new e-mail', async () => {
  await corp.setAccount('mallory', { email: 'mallory@corp.example', email_verified: true });
  const first = await freshPage();
  await signInThrough(first.page, authd, 'corp', (p) => corpLogin(p, corp, 'mallory'));
  const own = await sessionUser(first.context, authd);
  assert.ok(own, 'no account for the first sign-in');
  const target = await addUser(authd, 'heidi@example.com', { verified: true });
  // The upstream now says the same subject has Heidi's address, verified.
  await corp.setAccount('mallory', { email: 'heidi@example.com', email_verified: true });
  const second = await freshPage();
  await signInThrough(second.page, authd, 'corp', (p) => corpLogin(p, corp, 'mallory'));
  const me = await sessionUser(second.context, authd);
  assert.notEqual(me?.id, target.id, 'a changed upstream e-mail reached another account');
  if (me) assert.equal(me.id, own.id);
  assert.deepEqual(await identitiesOf(authd, target.id), []);
  assert.equal((await userByEmail(authd, 'heidi@example.com')).id, target.id);
});
