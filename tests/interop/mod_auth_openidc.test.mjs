// Interoperability (interface.md 17.14) with Apache's mod_auth_openidc
// (Debian's libapache2-mod-auth-openidc), a relying party in C on another
// JOSE stack: Apache, started here in the foreground on a free loopback
// port with a configuration of its own, protects /protected/ with
// `AuthType openid-connect` against authd's discovery document (PKCE S256,
// client_secret_basic). Chromium opens the protected page, is sent to
// authd's sign-in page, signs in, and lands on the page, which prints the
// ID token's claims that mod_auth_openidc passed to it (server-side
// includes of OIDC_CLAIM_*). A second visit is served from Apache's own
// session, without authd. Logging out through mod_auth_openidc's logout
// URL sends the browser through authd's end_session_endpoint (17.13,
// RP-Initiated Logout) and back to Apache's signed-out page, the authd
// session ended.
//
//   node tests/interop/mod_auth_openidc.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh).
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';

import { apacheErrors, startApache } from './apache.mjs';
import {
  addUser, freePort, logOf, newBrowserContext, registerClient, shot, signIn, setup, startProvider,
  suite
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const EMAIL = 'carol@example.com';
const check = suite();

let provider;
let user;
let apache;  // {base, handle}

// The module's part of the configuration (apache.mjs writes the server's).
function oidcConfig({ port, issuer, clientId, clientSecret }) {
  return `OIDCProviderMetadataURL ${issuer}/.well-known/openid-configuration
OIDCClientID ${clientId}
OIDCClientSecret ${clientSecret}
OIDCProviderTokenEndpointAuth client_secret_basic
OIDCRedirectURI http://127.0.0.1:${port}/protected/redirect_uri
OIDCPKCEMethod S256
OIDCScope "openid email profile"
OIDCPassClaimsAs environment
<Location /protected>
  AuthType openid-connect
  Require valid-user
  SetOutputFilter INCLUDES
  ForceType text/html
</Location>
`;
}

// The protected page prints the claims mod_auth_openidc hands it.
const CLAIMS_PAGE = `<!doctype html>
<title>Protected by mod_auth_openidc</title>
<p>Signed in as <span id="email"><!--#echo var="OIDC_CLAIM_email" --></span></p>
<p>sub <span id="sub"><!--#echo var="OIDC_CLAIM_sub" --></span></p>
<p>issuer <span id="iss"><!--#echo var="OIDC_CLAIM_iss" --></span></p>
`;

// Where the logout ends: outside the protected location.
const LOGGED_OUT_PAGE = `<!doctype html>
<title>Signed out</title>
<p id="signed-out">Signed out of the application and of authd.</p>
`;

function startRelyingParty(registered, port) {
  return startApache('apache', port, { 'protected/claims.shtml': CLAIMS_PAGE, 'loggedout.html': LOGGED_OUT_PAGE },
    oidcConfig({ port, issuer: provider.issuer, clientId: registered.clientId, clientSecret: registered.clientSecret }));
}

setup(async () => {
  provider = await startProvider(AUTHD);
  user = await addUser(provider, EMAIL, ['--display-name', 'Carol Example']);
  const port = await freePort();
  const registered = await registerClient(provider, {
    name: 'Apache mod_auth_openidc', type: 'confidential', firstParty: true,
    redirectUris: [`http://127.0.0.1:${port}/protected/redirect_uri`],
    postLogoutRedirectUris: [`http://127.0.0.1:${port}/loggedout.html`]
  });
  apache = await startRelyingParty(registered, port);
});

check('Interface_17_14 mod_auth_openidc signs a person in with authd and passes the ID token claims to the page', async () => {
  const context = await newBrowserContext();
  const page = await context.newPage();
  const protectedUrl = `${apache.base}/protected/claims.shtml`;
  try {
    await page.goto(protectedUrl);
    await signIn(page, provider.issuer, EMAIL, { screenshot: 'interop-mod-auth-openidc' });
    await page.waitForURL(protectedUrl, { timeout: 20_000 });
    await shot(page, 'interop-mod-auth-openidc-page.png');
    assert.equal(await page.locator('#email').textContent(), EMAIL);
    assert.equal(await page.locator('#sub').textContent(), user.id);
    assert.equal(await page.locator('#iss').textContent(), provider.issuer);
    // Apache's own session now: the page again, straight away.
    const again = await page.goto(protectedUrl);
    assert.equal(again.status(), 200);
    assert.equal(page.url(), protectedUrl);
    assert.equal(await page.locator('#email').textContent(), EMAIL);
  } catch (error) {
    error.message += `\n--- apache error.log ---\n${apacheErrors(apache)}\n--- apache stdout ---\n${logOf(apache.handle)}`;
    throw error;
  } finally {
    await context.close();
  }
});

// A GET as a browser's navigation sends it (mod_auth_openidc answers 401
// to a script's request, which fetch's fixed Sec-Fetch-Mode: cors says
// this would be); resolves to {status, headers}.
function navigate(url) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, {
      headers: { Accept: 'text/html', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' }
    }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers }));
    });
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error(`no answer from ${url}`)));
  });
}

check('Interface_17_14 without a session mod_auth_openidc sends the browser to authd with PKCE S256', async () => {
  const response = await navigate(`${apache.base}/protected/claims.shtml`);
  assert.equal(response.status, 302, `${response.status}\n${apacheErrors(apache)}`);
  const location = new URL(response.headers.location);
  assert.equal(`${location.origin}${location.pathname}`, `${provider.issuer}/oauth2/authorize`);
  assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
  assert.match(location.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.equal(location.searchParams.get('response_type'), 'code');
});

// interface.md 17.13: mod_auth_openidc's logout URL (OIDCRedirectURI
// ?logout=URL) ends Apache's session and sends the browser to authd's
// end_session_endpoint with id_token_hint and post_logout_redirect_uri;
// the hint names the browser's live session, so authd ends it without a
// page and sends the browser back to the URL.
check('Interface_17_13 mod_auth_openidc logs out of authd through RP-initiated logout', async () => {
  const context = await newBrowserContext();
  const page = await context.newPage();
  const protectedUrl = `${apache.base}/protected/claims.shtml`;
  const loggedOut = `${apache.base}/loggedout.html`;
  const endSession = [];
  page.on('request', (request) => {
    if (request.url().startsWith(`${provider.issuer}/oauth2/logout`)) endSession.push(new URL(request.url()));
  });
  try {
    await page.goto(protectedUrl);
    await signIn(page, provider.issuer, EMAIL);
    await page.waitForURL(protectedUrl, { timeout: 20_000 });
    const cookie = (await context.cookies(provider.issuer)).find((c) => c.name === 'authd_session');
    assert.ok(cookie, 'no authd session cookie after signing in');
    const me = async () => (await fetch(`${provider.issuer}/me`, { headers: { Authorization: `Bearer ${cookie.value}` } })).status;
    assert.equal(await me(), 200);

    await page.goto(`${apache.base}/protected/redirect_uri?logout=${encodeURIComponent(loggedOut)}`);
    await page.waitForURL(loggedOut, { timeout: 20_000 });
    assert.equal(await page.locator('#signed-out').count(), 1);
    assert.equal(endSession.length, 1, `end_session_endpoint requests: ${endSession.join(' ')}`);
    assert.ok(endSession[0].searchParams.get('id_token_hint'), 'no id_token_hint sent');
    assert.equal(endSession[0].searchParams.get('post_logout_redirect_uri'), loggedOut);
    assert.equal(await me(), 401, 'the authd session still lives');
    assert.equal((await context.cookies(provider.issuer)).find((c) => c.name === 'authd_session'), undefined);
    // Signed out at both: the protected page sends the browser to authd's
    // sign-in page again.
    await page.goto(protectedUrl);
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/signin`), { timeout: 15_000 });
  } catch (error) {
    error.message += `\n--- apache error.log ---\n${apacheErrors(apache)}\n--- apache stdout ---\n${logOf(apache.handle)}`;
    throw error;
  } finally {
    await context.close();
  }
});
