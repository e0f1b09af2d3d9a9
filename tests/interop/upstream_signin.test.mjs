// Sign-in with upstream identity providers (interface.md 18), end to end in
// Chromium: authd with two upstreams, npm's oidc-provider as the company's
// IdP (`corp`, tests/interop/upstream/corp_idp.mjs) and a test double of
// GitHub's OAuth apps and API (`github`, kind oauth2,
// tests/interop/upstream/github_double.mjs). Sign-up through corp, the same
// person signing in again, automatic linking to an existing account when
// both e-mails are verified, the refusal when authd's side is not verified
// and the link made from the signed-in account instead, the identities
// listed and removed, and GitHub-shaped sign-ins (a public e-mail, a private
// verified one, an unverified one).
//
//   node tests/interop/upstream_signin.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set.
import assert from 'node:assert/strict';
import path from 'node:path';

import { newBrowserContext, onCleanup, setup, shot, suite } from './support.mjs';
import {
  addUser, corpLogin, enrolTotp, events, githubAuthorize, githubUpstream, identitiesOf, oidcUpstream, passwordSignIn,
  reserveAuthd, sessionUser, signInThrough, startAuthd, startLink, callbackAnswer, userByEmail
} from './upstream/authd.mjs';
import { startCorpIdp, startGithubDouble } from './upstream/launch.mjs';
import { currentStep, totp } from '../support/totp.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const check = suite();

let authd;
let corp;
let corpEs;
let github;

setup(async () => {
  const reserved = await reserveAuthd();
  corp = await startCorpIdp({ redirectUris: [reserved.callback('corp')] });
  // The same IdP signing its ID tokens ES256 (P-256) instead of RS256.
  corpEs = await startCorpIdp({ name: 'corp_es', redirectUris: [reserved.callback('corp-es')],
    extraArgs: ['--id-token-alg', 'ES256'] });
  github = await startGithubDouble({ redirectUris: [reserved.callback('github')] });
  authd = await startAuthd(AUTHD, reserved, [
    oidcUpstream(corp, { name: 'corp', label: 'Company account', signup: true }),
    oidcUpstream(corpEs, { name: 'corp-es', label: 'Company account (ES256)', signup: true }),
    githubUpstream(github, { signup: true })
  ]);
});

async function freshContext() {
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  return context;
}

const signedInAccount = (user) => ({ id: user.id, email: user.email, verified: Boolean(user.emailVerifiedAt) });

check('Interface_18_3 a person unknown to authd signs up through the company IdP: an account with its verified e-mail and a link', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  const answer = await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, 'alice'));
  assert.ok(answer.status < 400, `the callback refused: ${answer.status}`);
  await shot(page, 'upstream-corp-signup.png');
  const me = await sessionUser(context, authd);
  assert.ok(me, 'no session at authd after signing up through corp');
  assert.deepEqual(signedInAccount(me), { id: me.id, email: 'alice@corp.example', verified: true });
  const links = await identitiesOf(authd, me.id);
  assert.equal(links.length, 1);
  assert.equal(links[0].provider, 'corp');
  assert.equal(links[0].email, 'alice@corp.example');
  assert.equal(links[0].subject, undefined, 'the upstream\'s subject is shown (18.4.1)');
  const linked = await events(authd, 'identity.linked');
  assert.ok(linked.some((e) => e.userId === me.id || e.user_id === me.id), 'no identity.linked event');
  const logins = (await events(authd, 'login.succeeded')).filter((e) => (e.userId ?? e.user_id) === me.id);
  assert.equal(logins[0]?.detail?.method, 'upstream');
  assert.equal(logins[0]?.detail?.provider, 'corp');
});

check('Interface_18_3 the same person signs in again through the company IdP to the same account', async () => {
  const first = await freshContext();
  const page = await first.newPage();
  await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, 'carol'));
  const before = await sessionUser(first, authd);
  assert.ok(before, 'no session after the first sign-in');
  const second = await freshContext();
  const again = await second.newPage();
  await signInThrough(again, authd, 'corp', (p) => corpLogin(p, corp, 'carol'));
  const after = await sessionUser(second, authd);
  assert.ok(after, 'no session after the second sign-in');
  assert.equal(after.id, before.id);
  assert.equal((await identitiesOf(authd, after.id)).length, 1, 'a second link for the same subject');
});

check('Interface_18_3 an existing account whose e-mail is verified is linked when the IdP asserts the same e-mail verified', async () => {
  const bob = await addUser(authd, 'bob@corp.example', { verified: true });
  await corp.setAccount('bob', { email: 'bob@corp.example', email_verified: true, name: 'Bob Corp' });
  const context = await freshContext();
  const page = await context.newPage();
  await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, 'bob'));
  const me = await sessionUser(context, authd);
  assert.ok(me, 'not signed in');
  assert.equal(me.id, bob.id, 'signed in to another account than the existing one');
  const links = await identitiesOf(authd, bob.id);
  assert.deepEqual(links.map((l) => l.provider), ['corp']);
});

check('Interface_18_3 an existing account whose e-mail is not verified is not linked: the person signs in with the password and links from there', async () => {
  const dan = await addUser(authd, 'dan@corp.example', { verified: false });
  await corp.setAccount('dan', { email: 'dan@corp.example', email_verified: true, name: 'Dan Corp' });
  const context = await freshContext();
  const page = await context.newPage();
  const refused = await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, 'dan'));
  await shot(page, 'upstream-corp-link-refused.png');
  assert.equal(await sessionUser(context, authd), null, 'signed in to an account whose e-mail nobody verified');
  assert.deepEqual(await identitiesOf(authd, dan.id), []);
  assert.equal((await userByEmail(authd, 'dan@corp.example')).id, dan.id, 'another account for the same e-mail');
  const text = await page.locator('body').innerText();
  assert.match(text, /sign in/i, `the page does not tell to sign in with the existing method (${refused.status}): ${text}`);

  // The way that is left: sign in with the password, link from there.
  await passwordSignIn(page, authd, 'dan@corp.example');
  const started = await startLink(page, authd, 'corp');
  assert.equal(started.status, 200, `POST /identities/corp: ${JSON.stringify(started)}`);
  assert.ok(started.body.location, 'no location to go to');
  await callbackAnswer(page, authd, 'corp', () => page.goto(new URL(started.body.location, authd.base).href));
  await shot(page, 'upstream-corp-linked-from-account.png');
  assert.deepEqual((await identitiesOf(authd, dan.id)).map((l) => l.provider), ['corp']);

  const later = await freshContext();
  const laterPage = await later.newPage();
  await signInThrough(laterPage, authd, 'corp', (p) => corpLogin(p, corp, 'dan'));
  assert.equal((await sessionUser(later, authd))?.id, dan.id, 'the link made from the account does not sign it in');
});

check('Interface_18_2 an ID token signed ES256 by the IdP verifies as RS256 ones do', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  await corpEs.setAccount('ivan', { email: 'ivan@corp.example', email_verified: true });
  const answer = await signInThrough(page, authd, 'corp-es', (p) => corpLogin(p, corpEs, 'ivan'));
  const me = await sessionUser(context, authd);
  assert.ok(me, `not signed in through the ES256 provider (${answer.status})`);
  assert.equal(me.email, 'ivan@corp.example');
});

check('Interface_18_3_7 an upstream sign-in of an account with TOTP asks for the code before the session opens', async () => {
  await addUser(authd, 'zoe@corp.example', { verified: true });
  const secret = await enrolTotp(authd, 'zoe@corp.example');
  await corp.setAccount('zoe', { email: 'zoe@corp.example', email_verified: true });
  const context = await freshContext();
  const page = await context.newPage();
  const answer = await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, 'zoe'));
  assert.equal(answer.status, 302, `the callback answered ${answer.status}`);
  await page.waitForURL(`${authd.base}/signin/upstream/second-factor`);
  await page.waitForSelector('#code');
  await shot(page, 'upstream-corp-second-factor.png');
  assert.equal(await sessionUser(context, authd), null,
    'an upstream sign-in skipped the account\'s second factor');
  // The step after the one the enrolment took (a step is accepted once, 12.3.3).
  await page.fill('#code', totp(secret, currentStep() + 1));
  await Promise.all([page.waitForURL(`${authd.base}/signed-in`), page.click('#code-submit')]);
  await page.waitForSelector('#heading');
  assert.match(await page.textContent('#heading'), /You are signed in/);
  const me = await sessionUser(context, authd);
  assert.ok(me, 'not signed in after the code');
  assert.equal(me.email, 'zoe@corp.example');
});

check('Interface_18_4 the identities are listed to their account and removed, except the last way to sign in (409)', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  await corp.setAccount('erin', { email: 'erin@corp.example', email_verified: true });
  await signInThrough(page, authd, 'corp', (p) => corpLogin(p, corp, 'erin'));
  const me = await sessionUser(context, authd);
  assert.ok(me, 'not signed in');
  const token = (await context.cookies(authd.base)).find((c) => c.name === 'authd_session').value;
  const listed = await fetch(`${authd.base}/identities`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(listed.status, 200);
  const body = await listed.json();
  const links = body.identities ?? body;
  assert.equal(links.length, 1);
  // An account made through the upstream has no password: its one link is
  // its last way to sign in.
  const removed = await fetch(`${authd.base}/identities/${links[0].id}`,
    { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  assert.equal(removed.status, 409);
  assert.equal((await identitiesOf(authd, me.id)).length, 1);
});

check('Interface_18_1 GitHub-shaped sign-up (kind oauth2): the public e-mail, verified through /user/emails', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  await signInThrough(page, authd, 'github', (p) => githubAuthorize(p, github, 'octocat'));
  await shot(page, 'upstream-github-signup.png');
  const me = await sessionUser(context, authd);
  assert.ok(me, 'not signed in through GitHub');
  assert.equal(me.email, 'octocat@github.example');
  assert.ok(me.emailVerifiedAt, 'GitHub said the e-mail is verified');
  const links = await identitiesOf(authd, me.id);
  assert.deepEqual(links.map((l) => [l.provider, l.email]), [['github', 'octocat@github.example']]);
});

check('Interface_18_1 GitHub-shaped sign-up without a public e-mail takes the verified primary one of /user/emails', async () => {
  const context = await freshContext();
  const page = await context.newPage();
  await signInThrough(page, authd, 'github', (p) => githubAuthorize(p, github, 'private'));
  const me = await sessionUser(context, authd);
  assert.ok(me, 'not signed in through GitHub');
  assert.equal(me.email, 'octo-private@github.example');
  assert.ok(me.emailVerifiedAt);
});

check('Interface_18_3 GitHub-shaped sign-up with an unverified primary e-mail: never linked to the account of that e-mail', async () => {
  const owner = await addUser(authd, 'unverified@github.example', { verified: true });
  const context = await freshContext();
  const page = await context.newPage();
  await signInThrough(page, authd, 'github', (p) => githubAuthorize(p, github, 'unverified'));
  const me = await sessionUser(context, authd);
  assert.notEqual(me?.id, owner.id, 'an unverified upstream e-mail reached an existing account');
  assert.deepEqual(await identitiesOf(authd, owner.id), []);
});

check('Interface_18_3 an upstream sign-in never creates an account when sign-up is closed for that provider', async () => {
  // A second authd whose corp upstream has signup = false.
  const reserved = await reserveAuthd('authd_closed');
  const closedCorp = await startCorpIdp({ name: 'corp_closed', redirectUris: [reserved.callback('corp')] });
  const closed = await startAuthd(AUTHD, reserved,
    [oidcUpstream(closedCorp, { name: 'corp', label: 'Company account', signup: false })]);
  const context = await freshContext();
  const page = await context.newPage();
  await signInThrough(page, closed, 'corp', (p) => corpLogin(p, closedCorp, 'alice'));
  assert.equal(await sessionUser(context, closed), null);
  assert.equal(await userByEmail(closed, 'alice@corp.example'), null, 'an account was created');
});
