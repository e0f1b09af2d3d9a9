// authd between an application and an upstream identity provider
// (interface.md 18.2, 18.5) in Chromium: openid-client, an OpenID relying
// party of authd, sends the browser to authd's authorization endpoint; on
// authd's sign-in page the person picks the company account (npm's
// oidc-provider, tests/interop/upstream/corp_idp.mjs), signs in there, and
// authd continues the waiting authorization request: the application gets
// an ID token whose `amr` holds "fed" (RFC 8176). Then authd as the
// upstream of another authd: the second one configured with the first's
// issuer (kind oidc), a person with a password at the first signing in to
// the second, and an application of the second seeing "fed" too.
//
//   node tests/interop/upstream_relying_party.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set (each authd on a
// database of its own).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import * as client from 'openid-client';

import {
  newBrowserContext, onCleanup, registerClient, setup, shot, signIn, startCallbackServer, suite, workDir
} from './support.mjs';
import {
  addUser, corpLogin, callbackAnswer, identitiesOf, oidcUpstream, reserveAuthd, sessionUser, signInThrough, startAuthd
} from './upstream/authd.mjs';
import { startCorpIdp } from './upstream/launch.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const check = suite();

let authd;
let corp;
let callback;

setup(async () => {
  const reserved = await reserveAuthd();
  corp = await startCorpIdp({ redirectUris: [reserved.callback('corp')] });
  authd = await startAuthd(AUTHD, reserved, [oidcUpstream(corp, { name: 'corp', label: 'Company account' })]);
  callback = await startCallbackServer();
});

async function configure(provider, registered) {
  const config = await client.discovery(new URL(provider.issuer), registered.clientId, undefined,
    client.ClientSecretBasic(registered.clientSecret), { execute: [client.allowInsecureRequests] });
  client.enableNonRepudiationChecks(config);
  return config;
}

async function authorizationUrl(config) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri, scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce
  });
  return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true } };
}

// The button of `label` on authd's sign-in page (17.5, 18.2).
async function pickUpstream(page, provider, label) {
  await page.waitForURL((url) => url.href.startsWith(`${provider.base}/signin`), { timeout: 15_000 });
  await page.getByText(label, { exact: false }).first().click();
}

check('Interface_18_5 openid-client signs in to authd through the company IdP: the waiting request goes on and amr holds "fed"', async () => {
  const registered = await registerClient(authd, {
    name: 'App behind authd', type: 'confidential', firstParty: true, redirectUris: [callback.redirectUri]
  });
  const config = await configure(authd, registered);
  const { url, checks } = await authorizationUrl(config);
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  const page = await context.newPage();
  const answer = callback.next();
  await page.goto(url.href);
  await pickUpstream(page, authd, 'Company account');
  await shot(page, 'upstream-rp-corp-login.png');
  await corpLogin(page, corp, 'alice');
  const response = await answer;
  assert.equal(response.searchParams.get('error'), null, `authorization error: ${response.searchParams}`);
  const tokens = await client.authorizationCodeGrant(config, response, checks, { redirect_uri: callback.redirectUri });
  const claims = tokens.claims();
  assert.ok(Array.isArray(claims.amr) && claims.amr.includes('fed'), `amr: ${JSON.stringify(claims.amr)}`);
  assert.ok(!claims.amr.includes('pwd'), 'no password was used');
  assert.equal(claims.email, 'alice@corp.example');
  const me = await sessionUser(context, authd);
  assert.equal(me?.id, claims.sub, 'the browser session is not the ID token\'s account');
});

check('Interface_18_5 authd is the upstream of another authd: a password account of the first signs in to the second', async () => {
  // The first authd, the OpenID provider, with a client for the second.
  const upperReserved = await reserveAuthd('authd_upper');
  const upper = await startAuthd(AUTHD, upperReserved, []);
  const person = await addUser(upper, 'grace@upper.example', { verified: true });
  const lowerReserved = await reserveAuthd('authd_lower');
  const asClient = await registerClient(upper, {
    name: 'The other authd', type: 'confidential', firstParty: true,
    redirectUris: [lowerReserved.callback('upper')]
  });
  const secretFile = path.join(workDir, 'upper-client.secret');
  fs.writeFileSync(secretFile, `${asClient.clientSecret}\n`, { mode: 0o600 });
  const lower = await startAuthd(AUTHD, lowerReserved, [oidcUpstream(
    { issuer: upper.issuer, clientId: asClient.clientId, clientSecretFile: secretFile },
    { name: 'upper', label: 'Upper authd account', signup: true })]);

  const context = await newBrowserContext();
  onCleanup(() => context.close());
  const page = await context.newPage();
  await signInThrough(page, lower, 'upper', (p) => signIn(p, upper.issuer, 'grace@upper.example'));
  await shot(page, 'upstream-authd-of-authd.png');
  const me = await sessionUser(context, lower);
  assert.ok(me, 'not signed in to the second authd');
  assert.equal(me.email, 'grace@upper.example');
  assert.ok(me.emailVerifiedAt, 'the first authd said the e-mail is verified');
  const links = await identitiesOf(lower, me.id);
  assert.deepEqual(links.map((l) => [l.provider, l.email]), [['upper', 'grace@upper.example']]);

  // An application of the second authd, the browser already signed in there.
  const registered = await registerClient(lower, {
    name: 'App behind the second authd', type: 'confidential', firstParty: true, redirectUris: [callback.redirectUri]
  });
  const config = await configure(lower, registered);
  const { url, checks } = await authorizationUrl(config);
  const answer = callback.next();
  await page.goto(url.href);
  const response = await answer;
  const tokens = await client.authorizationCodeGrant(config, response, checks, { redirect_uri: callback.redirectUri });
  assert.ok(tokens.claims().amr?.includes('fed'), `amr: ${JSON.stringify(tokens.claims().amr)}`);
  assert.equal(tokens.claims().sub, me.id);
});

check('Interface_18_2 an upstream that answers access_denied: authd shows its error page and signs nobody in', async () => {
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  const page = await context.newPage();
  const answer = await callbackAnswer(page, authd, 'corp', async () => {
    await page.goto(`${authd.base}/signin/corp`);
    await page.waitForURL((u) => u.href.startsWith(`${corp.issuer}/interaction/`));
    await page.locator('#idp-cancel').click();
  });
  assert.ok(answer.status >= 300, `status ${answer.status}`);
  assert.equal(await sessionUser(context, authd), null);
});
