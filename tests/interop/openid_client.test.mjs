// Interoperability (interface.md 17.14) with openid-client, a certified
// OpenID relying party for Node.js: discovery, an authorization URL with
// PKCE (S256), state and nonce, the person signing in on authd's page in
// Chromium (and allowing a third-party client on the consent page), the
// code exchanged and the ID token validated by openid-client (iss, aud,
// nonce, azp, the signature against the JWKS), then userinfo; a second
// authorization answered by the browser's session at authd; a denied
// consent read as access_denied; refresh tokens (rotation, reuse
// detection) and their revocation (RFC 7009); the end-session URL
// openid-client builds (RP-initiated logout, 17.13) signing the browser out.
//
//   node --test tests/interop/openid_client.test.mjs   (AUTHD points at authd)
//   node tests/interop/openid_client.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh). Every process it starts is stopped on every
// path out; screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import path from 'node:path';

import * as client from 'openid-client';

import {
  addUser, authorizeInBrowser, newBrowserContext, onCleanup, registerClient, setup, startCallbackServer, startProvider, suite
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const EMAIL = 'alice@example.com';
const check = suite();

let provider;
let callback;
let user;

setup(async () => {
  provider = await startProvider(AUTHD);
  callback = await startCallbackServer();
  user = await addUser(provider, EMAIL, ['--display-name', 'Alice Example']);
});

// openid-client's configuration from authd's discovery document; http is
// allowed for the loopback issuer only because we ask for it.
async function configure(clientId, metadata, clientAuth) {
  const config = await client.discovery(new URL(provider.issuer), clientId, metadata, clientAuth,
    { execute: [client.allowInsecureRequests] });
  // Verify the ID token's signature against jwks_uri too (openid-client
  // otherwise relies on TLS to the token endpoint, Core 3.1.3.7 item 6).
  client.enableNonRepudiationChecks(config);
  return config;
}

// The whole code flow as a relying party runs it; returns what it got.
async function codeFlow(config, redirectUri, scope, options = {}) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce
  });
  const response = await authorizeInBrowser(provider, callback, url, EMAIL, options);
  // RFC 9207: authd names itself in the response; openid-client checks it.
  assert.equal(response.searchParams.get('iss'), provider.issuer);
  const tokens = await client.authorizationCodeGrant(config, response, {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true
  }, { redirect_uri: redirectUri });
  const claims = tokens.claims();
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  return { tokens, claims, userinfo, nonce };
}

check('Interface_17_2 openid-client discovers authd as an OpenID provider', async () => {
  const config = await configure('discovery-only', undefined, client.None());
  const metadata = config.serverMetadata();
  assert.equal(metadata.issuer, provider.issuer);
  assert.equal(metadata.authorization_endpoint, `${provider.issuer}/oauth2/authorize`);
  assert.equal(metadata.token_endpoint, `${provider.issuer}/oauth2/token`);
  assert.equal(metadata.jwks_uri, `${provider.issuer}/oauth2/jwks`);
  assert.ok(metadata.supportsPKCE('S256'), 'S256 PKCE not advertised');
  assert.equal(metadata.authorization_response_iss_parameter_supported, true);
});

check('Interface_17_14 openid-client completes the code flow with PKCE for a first-party public client on a loopback redirect of any port', async () => {
  // A native app (RFC 8252 7.3): registered without a port, redirected to
  // the port it happens to listen on.
  const registered = await registerClient(provider, {
    name: 'Interop native app', type: 'public', firstParty: true,
    redirectUris: ['http://127.0.0.1/callback']
  });
  const config = await configure(registered.clientId, undefined, client.None());
  const { tokens, claims, userinfo, nonce } = await codeFlow(config, callback.redirectUri,
    'openid email profile', { screenshot: 'interop-openid-client' });
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(claims.iss, provider.issuer);
  assert.equal(claims.aud, registered.clientId);
  assert.equal(claims.azp, registered.clientId);
  assert.equal(claims.sub, user.id);
  assert.equal(claims.nonce, nonce);
  assert.equal(claims.email, EMAIL);
  assert.deepEqual(claims.amr, ['pwd']);
  assert.equal(userinfo.sub, user.id);
  assert.equal(userinfo.email, EMAIL);
  assert.equal(userinfo.name, 'Alice Example');
});

check('Interface_17_14 openid-client signs in again through the browser session at authd without the sign-in page', async () => {
  const registered = await registerClient(provider, {
    name: 'Interop single sign-on', type: 'confidential', firstParty: true,
    redirectUris: [callback.redirectUri]
  });
  const config = await configure(registered.clientId, undefined, client.ClientSecretBasic(registered.clientSecret));
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  const first = await codeFlow(config, callback.redirectUri, 'openid email', { context });
  // The same browser, a new authorization: authd's cookie session answers
  // it at once (17.5), with the same session and sign-in time.
  const second = await codeFlow(config, callback.redirectUri, 'openid email', { context, signedIn: true });
  assert.equal(second.claims.sub, user.id);
  assert.equal(second.claims.sid, first.claims.sid);
  assert.equal(second.claims.auth_time, first.claims.auth_time);
  assert.notEqual(second.claims.nonce, first.claims.nonce);
});

check('Interface_17_14 openid-client completes the code flow of a third-party confidential client after consent (client_secret_post)', async () => {
  const registered = await registerClient(provider, {
    name: 'Interop partner', type: 'confidential', firstParty: false,
    redirectUris: [callback.redirectUri]
  });
  const config = await configure(registered.clientId,
    { token_endpoint_auth_method: 'client_secret_post' }, client.ClientSecretPost(registered.clientSecret));
  const { claims, userinfo } = await codeFlow(config, callback.redirectUri, 'openid email',
    { consent: true, screenshot: 'interop-openid-client-third-party' });
  assert.equal(claims.aud, registered.clientId);
  assert.equal(claims.sub, user.id);
  assert.equal(claims.name, undefined, 'a claim of a scope not asked for');
  assert.equal(userinfo.email, EMAIL);
  assert.equal(userinfo.email_verified, claims.email_verified);
});

check('Interface_17_14 openid-client reads a denied consent as access_denied from authd', async () => {
  const registered = await registerClient(provider, {
    name: 'Interop denied', type: 'public', firstParty: false, redirectUris: [callback.redirectUri]
  });
  const config = await configure(registered.clientId, undefined, client.None());
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    state
  });
  const response = await authorizeInBrowser(provider, callback, url, EMAIL,
    { consent: 'deny', errorExpected: true });
  // openid-client checks the error response's iss and state before it
  // reports the error (RFC 9207).
  await assert.rejects(client.authorizationCodeGrant(config, response, {
    pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: state
  }), (error) => {
    assert.ok(error instanceof client.AuthorizationResponseError, `not an authorization error: ${error}`);
    assert.equal(error.error, 'access_denied');
    return true;
  });
});

// interface.md 17.13: RP-initiated logout as openid-client builds it
// (buildEndSessionUrl: the discovery document's end_session_endpoint with
// id_token_hint, post_logout_redirect_uri and state). authd ends the
// browser's session at once (the hint names it) and sends the browser back
// to the registered URI with the state.
check('Interface_17_13 openid-client builds an end-session URL that signs the browser out of authd', async () => {
  const signedOut = `http://127.0.0.1:${callback.port}/signed-out`;
  const registered = await registerClient(provider, {
    name: 'Interop logout', type: 'confidential', firstParty: true,
    redirectUris: [callback.redirectUri], postLogoutRedirectUris: [signedOut]
  });
  const config = await configure(registered.clientId, undefined, client.ClientSecretBasic(registered.clientSecret));
  assert.equal(config.serverMetadata().end_session_endpoint, `${provider.issuer}/oauth2/logout`);
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  const { tokens } = await codeFlow(config, callback.redirectUri, 'openid email', { context });
  const sessionCookie = async () => (await context.cookies(provider.issuer)).find((c) => c.name === 'authd_session');
  const cookie = await sessionCookie();
  assert.ok(cookie, 'no authd session cookie after signing in');
  const me = async () => (await fetch(`${provider.issuer}/me`, { headers: { Authorization: `Bearer ${cookie.value}` } })).status;
  assert.equal(await me(), 200);

  const state = client.randomState();
  const url = client.buildEndSessionUrl(config, {
    id_token_hint: tokens.id_token, post_logout_redirect_uri: signedOut, state
  });
  assert.equal(`${url.origin}${url.pathname}`, `${provider.issuer}/oauth2/logout`);
  const page = await context.newPage();
  await page.goto(url.href);
  await page.waitForURL((at) => at.href.startsWith(signedOut), { timeout: 15_000 });
  const landed = new URL(page.url());
  assert.equal(landed.searchParams.get('state'), state);
  assert.equal(await me(), 401, 'the authd session still lives');
  assert.equal(await sessionCookie(), undefined, 'the cookie was not cleared');
  await page.close();
});

// interface.md 17.10, 17.11: offline_access gives a refresh token that
// openid-client redeems (the ID token of the refresh checked against the
// first: sub, iss, aud, auth_time); the rotated one presented again is
// invalid_grant and kills the family, the newest token included; a
// revoked refresh token (RFC 7009) is dead too.
check('Interface_17_10 oidcc-refresh-token: openid-client refreshes, sees reuse detection and revokes', async () => {
  const registered = await registerClient(provider, {
    name: 'Interop offline', type: 'confidential', firstParty: true,
    redirectUris: [callback.redirectUri]
  });
  const config = await configure(registered.clientId, undefined, client.ClientSecretBasic(registered.clientSecret));
  const metadata = config.serverMetadata();
  assert.equal(metadata.revocation_endpoint, `${provider.issuer}/oauth2/revoke`);
  assert.ok(metadata.grant_types_supported.includes('refresh_token'));
  const context = await newBrowserContext();
  onCleanup(() => context.close());
  const first = await codeFlow(config, callback.redirectUri, 'openid email offline_access', { context });
  const oldRefresh = first.tokens.refresh_token;
  assert.match(oldRefresh, /^authdrf_/);

  const refreshed = await client.refreshTokenGrant(config, oldRefresh);
  assert.notEqual(refreshed.refresh_token, oldRefresh);
  assert.equal(refreshed.claims().sub, user.id);
  assert.equal(refreshed.claims().auth_time, first.claims.auth_time);
  const info = await client.fetchUserInfo(config, refreshed.access_token, user.id);
  assert.equal(info.email, EMAIL);

  const invalidGrant = (error) => {
    assert.ok(error instanceof client.ResponseBodyError, `not an error response: ${error}`);
    assert.equal(error.error, 'invalid_grant');
    return true;
  };
  await assert.rejects(client.refreshTokenGrant(config, oldRefresh), invalidGrant);
  await assert.rejects(client.refreshTokenGrant(config, refreshed.refresh_token), invalidGrant);

  const second = await codeFlow(config, callback.redirectUri, 'openid email offline_access',
    { context, signedIn: true });
  await client.tokenRevocation(config, second.tokens.refresh_token, { token_type_hint: 'refresh_token' });
  await assert.rejects(client.refreshTokenGrant(config, second.tokens.refresh_token), invalidGrant);
});
