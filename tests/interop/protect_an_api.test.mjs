// Interoperability of JWT access tokens (interface.md 17.9, RFC 9068) with
// resource servers someone else wrote, as docs/guide/protect-an-api.md
// configures them: npm's `jose` verifies a token against /oauth2/jwks (typ
// at+jwt, issuer, audience), and Apache's mod_auth_openidc in
// resource-server mode (`AuthType oauth20`, `OIDCOAuthVerifyJwksUri`)
// protects /api/: a JWT access token for its audience is let through; a
// tampered one, an expired one (--oidc-access-token-ttl 6s) and one for
// another audience are refused. The tokens come from a code flow with the
// browser's session cookie (POST /login), no browser needed.
// mod_auth_openidc fetches a JWKS only over https://: here it does so
// through a TLS-terminating proxy in front of authd (a self-signed
// certificate for 127.0.0.1, given to it with OIDCCABundlePath), as a
// deployment puts TLS in front of authd.
//
//   node tests/interop/protect_an_api.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';

import * as jose from 'jose';

import { apacheErrors, startApache } from './apache.mjs';
import {
  PASSWORD, addUser, freePort, logOf, onCleanup, registerClient, setup, startProvider, suite, workDir
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const EMAIL = 'dana@example.com';
const API = 'https://api.example.com';  // the resource (RFC 8707) the API is
const REDIRECT = 'https://app.example.com/callback';
const TTL_SECONDS = 6;
const check = suite();

let provider;
let user;
let client;
let apache;  // {base, handle, errorLog}

// The guide's configuration (docs/guide/protect-an-api.md): the module's part.
function oidcConfig({ issuer, jwksUri, caBundle }) {
  return `OIDCOAuthVerifyJwksUri ${jwksUri}
OIDCCABundlePath ${caBundle}
OIDCOAuthRemoteUserClaim sub
<Location /api>
  AuthType oauth20
  <RequireAll>
    Require claim aud:${API}
    Require claim iss:${issuer}
  </RequireAll>
  SetOutputFilter INCLUDES
  ForceType text/html
</Location>
`;
}

const API_PAGE = `<!doctype html>
<title>An API protected by mod_auth_openidc</title>
<p>user <span id="user"><!--#echo var="REMOTE_USER" --></span></p>
`;

// A self-signed certificate for 127.0.0.1, readable by www-data.
function makeCertificate() {
  const cert = path.join(workDir, 'tls-cert.pem');
  const key = path.join(workDir, 'tls-key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
    '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  fs.chmodSync(cert, 0o644);
  return { cert, key };
}

// HTTPS on 127.0.0.1 in front of authd's plain HTTP: every request passed on.
async function startTlsProxy(tls) {
  const upstream = new URL(provider.issuer);
  const server = https.createServer({ cert: fs.readFileSync(tls.cert), key: fs.readFileSync(tls.key) },
    (request, response) => {
      const forwarded = http.request({
        host: upstream.hostname, port: upstream.port, method: request.method, path: request.url,
        headers: { ...request.headers, host: upstream.host }
      }, (answer) => {
        response.writeHead(answer.statusCode, answer.headers);
        answer.pipe(response);
      });
      forwarded.on('error', () => response.destroy());
      request.pipe(forwarded);
    });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise((resolve) => server.close(resolve)));
  return `https://127.0.0.1:${server.address().port}`;
}

function startApi(port, jwksUri, caBundle) {
  return startApache('apache', port, { 'api/me.shtml': API_PAGE },
    oidcConfig({ issuer: provider.issuer, jwksUri, caBundle }));
}

// The browser's session: POST /login's bearer token, sent as the cookie.
async function sessionCookie() {
  const response = await fetch(`${provider.issuer}/login`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD })
  });
  assert.equal(response.status, 200, await response.text());
  return response.headers.get('authorization').replace(/^Bearer /, '');
}

// A code flow for `client` (a first-party client: no consent page), with
// `resource` when given: the token endpoint's answer.
async function tokens(cookie, resource) {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT, scope: 'openid email',
    state: crypto.randomBytes(8).toString('hex'), code_challenge: challenge, code_challenge_method: 'S256'
  });
  if (resource) query.set('resource', resource);
  const authorized = await fetch(`${provider.issuer}/oauth2/authorize?${query}`, {
    headers: { Cookie: `authd_session=${cookie}` }, redirect: 'manual'
  });
  assert.equal(authorized.status, 302, await authorized.text());
  const code = new URL(authorized.headers.get('location')).searchParams.get('code');
  assert.ok(code, authorized.headers.get('location'));
  const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
  const response = await fetch(`${provider.issuer}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

async function callApi(token) {
  const response = await fetch(`${apache.base}/api/me.shtml`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.text(), challenge: response.headers.get('www-authenticate') };
}

setup(async () => {
  provider = await startProvider(AUTHD, ['--oidc-access-token-ttl', `${TTL_SECONDS}s`]);
  user = await addUser(provider, EMAIL);
  client = await registerClient(provider, {
    name: 'API client', type: 'confidential', firstParty: true, redirectUris: [REDIRECT],
    accessTokenFormat: 'jwt'
  });
  const tls = makeCertificate();
  const front = await startTlsProxy(tls);
  apache = await startApi(await freePort(), `${front}/oauth2/jwks`, tls.cert);
});

check('Interface_17_9 jose verifies a JWT access token against /oauth2/jwks: typ at+jwt, issuer, audience', async () => {
  const cookie = await sessionCookie();
  const answer = await tokens(cookie, API);
  const jwks = jose.createRemoteJWKSet(new URL(`${provider.issuer}/oauth2/jwks`));
  const { payload, protectedHeader } = await jose.jwtVerify(answer.access_token, jwks, {
    issuer: provider.issuer, audience: API, typ: 'at+jwt', algorithms: ['RS256'], requiredClaims: ['jti', 'exp', 'iat']
  });
  assert.equal(protectedHeader.typ, 'at+jwt');
  assert.equal(payload.sub, user.id);
  assert.equal(payload.client_id, client.clientId);
  assert.equal(payload.scope, 'openid email');
  assert.equal(payload.exp - payload.iat, TTL_SECONDS);
  // Another audience, and the ID token taken for an access token: refused.
  await assert.rejects(jose.jwtVerify(answer.access_token, jwks, { issuer: provider.issuer, audience: 'https://other.example.com', typ: 'at+jwt' }),
    { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  await assert.rejects(jose.jwtVerify(answer.id_token, jwks, { issuer: provider.issuer, typ: 'at+jwt' }),
    { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  // Without a resource the audience is the issuer.
  const plain = await tokens(cookie);
  const verified = await jose.jwtVerify(plain.access_token, jwks, { issuer: provider.issuer, audience: provider.issuer, typ: 'at+jwt' });
  assert.equal(verified.payload.sub, user.id);
});

check('Interface_17_9 mod_auth_openidc (AuthType oauth20) lets a JWT access token for its audience through', async () => {
  const answer = await tokens(await sessionCookie(), API);
  const response = await callApi(answer.access_token);
  assert.equal(response.status, 200, `${response.status} ${response.body}\n${apacheErrors(apache)}`);
  assert.match(response.body, new RegExp(`<span id="user">${user.id}</span>`));
});

check('Interface_17_9 mod_auth_openidc refuses a tampered, a foreign-audience and an expired JWT access token', async () => {
  const cookie = await sessionCookie();
  const answer = await tokens(cookie, API);
  const [header, body, signature] = answer.access_token.split('.');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  claims.sub = 'someone-else';
  const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
  const foreign = (await tokens(cookie)).access_token;  // audience: the issuer
  const none = await callApi('');
  const refusedTampered = await callApi(tampered);
  assert.equal(refusedTampered.status, 401, apacheErrors(apache));
  assert.match(refusedTampered.challenge ?? '', /error="invalid_token"/);
  // Signed by authd, but for the issuer, not this API: `Require claim aud:`.
  const refusedForeign = await callApi(foreign);
  assert.equal(refusedForeign.status, 401, apacheErrors(apache));
  assert.match(apacheErrors(apache), /could not match require claim expression 'aud:/);
  for (const response of [refusedTampered, refusedForeign]) assert.doesNotMatch(response.body, /<span id="user">/);
  assert.equal(none.status, 401);
  // The first token, once past its exp: refused, though its signature holds.
  const expiresAt = JSON.parse(Buffer.from(answer.access_token.split('.')[1], 'base64url').toString()).exp * 1000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1500));
  const expired = await callApi(answer.access_token);
  assert.equal(expired.status, 401, `${expired.status}\n${apacheErrors(apache)}\n${logOf(apache.handle)}`);
  assert.match(expired.challenge ?? '', /Bearer/);
  assert.match(apacheErrors(apache), /"exp" validation failure/);
});
