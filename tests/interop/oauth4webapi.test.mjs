// Interoperability (interface.md 17.14) with oauth4webapi, a second
// relying-party library, and jose, an independent JWS implementation:
// a confidential client authenticating with client_secret_basic (RS256 ID
// tokens) and one whose ID tokens are ES256 (idTokenSignedResponseAlg,
// 17.3), each through the code flow with PKCE in Chromium; oauth4webapi
// validates the answers, jose verifies each ID token's signature against
// /oauth2/jwks (createRemoteJWKSet + jwtVerify, issuer and audience
// checked) and refuses it for another audience or with a changed byte.
//
//   node tests/interop/oauth4webapi.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh).
import assert from 'node:assert/strict';
import path from 'node:path';

import * as jose from 'jose';
import * as oauth from 'oauth4webapi';

import {
  addUser, authorizeInBrowser, log, registerClient, setup, startCallbackServer, startProvider, suite
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const EMAIL = 'bob@example.com';
const check = suite();
// http is allowed for the loopback issuer only because we ask for it.
const INSECURE = { [oauth.allowInsecureRequests]: true };

let provider;
let callback;
let user;
let as;
const idTokens = {};  // by algorithm, with the client they were issued to

setup(async () => {
  provider = await startProvider(AUTHD);
  callback = await startCallbackServer();
  user = await addUser(provider, EMAIL, ['--phone', '+15551234567']);
  const issuer = new URL(provider.issuer);
  as = await oauth.processDiscoveryResponse(issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...INSECURE }));
});

// The code flow as oauth4webapi runs it; returns the validated answers.
async function codeFlow(oauthClient, clientAuth, scope) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: oauthClient.client_id,
    redirect_uri: callback.redirectUri,
    response_type: 'code',
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256'
  }).toString();
  const response = await authorizeInBrowser(provider, callback, url, EMAIL);
  // validateAuthResponse checks state and, as advertised, iss (RFC 9207).
  const parameters = oauth.validateAuthResponse(as, oauthClient, response, state);
  log('oauth4webapi: the code to the token endpoint');
  const tokenResponse = await oauth.authorizationCodeGrantRequest(as, oauthClient, clientAuth, parameters,
    callback.redirectUri, codeVerifier, INSECURE);
  const result = await oauth.processAuthorizationCodeResponse(as, oauthClient, tokenResponse,
    { expectedNonce: nonce, requireIdToken: true });
  const claims = oauth.getValidatedIdTokenClaims(result);
  log('oauth4webapi: tokens validated');
  const userinfo = await oauth.processUserInfoResponse(as, oauthClient, claims.sub,
    await oauth.userInfoRequest(as, oauthClient, result.access_token, INSECURE));
  return { result, claims, userinfo };
}

function header(jws) {
  return JSON.parse(Buffer.from(jws.split('.')[0], 'base64url').toString('utf8'));
}

check('Interface_17_14 oauth4webapi completes the code flow of a confidential client (client_secret_basic, RS256)', async () => {
  const registered = await registerClient(provider, {
    name: 'Interop basic', type: 'confidential', firstParty: true, redirectUris: [callback.redirectUri]
  });
  const oauthClient = { client_id: registered.clientId, token_endpoint_auth_method: 'client_secret_basic' };
  const { result, claims, userinfo } = await codeFlow(oauthClient,
    oauth.ClientSecretBasic(registered.clientSecret), 'openid email phone');
  assert.equal(header(result.id_token).alg, 'RS256');
  assert.equal(claims.iss, provider.issuer);
  assert.equal(claims.aud, registered.clientId);
  assert.equal(claims.sub, user.id);
  assert.equal(claims.email, EMAIL);
  assert.equal(userinfo.phone_number, '+15551234567');
  assert.equal(typeof userinfo.phone_number_verified, 'boolean');
  idTokens.RS256 = { jws: result.id_token, clientId: registered.clientId };
});

check('Interface_17_14 oauth4webapi completes the code flow of a client with ES256 ID tokens', async () => {
  const registered = await registerClient(provider, {
    name: 'Interop ES256', type: 'confidential', firstParty: true, redirectUris: [callback.redirectUri],
    idTokenSignedResponseAlg: 'ES256'
  });
  // oauth4webapi refuses an ID token of another alg than the client's.
  const oauthClient = { client_id: registered.clientId, id_token_signed_response_alg: 'ES256' };
  const { result, claims, userinfo } = await codeFlow(oauthClient,
    oauth.ClientSecretBasic(registered.clientSecret), 'openid email');
  assert.equal(header(result.id_token).alg, 'ES256');
  assert.equal(claims.aud, registered.clientId);
  assert.equal(claims.sub, user.id);
  assert.equal(userinfo.email, EMAIL);
  idTokens.ES256 = { jws: result.id_token, clientId: registered.clientId };
});

for (const alg of ['RS256', 'ES256']) {
  check(`Interface_17_12 jose verifies the ${alg} ID token against /oauth2/jwks`, async () => {
    const token = idTokens[alg];
    assert.ok(token, `no ${alg} ID token: the flow above failed`);
    const jwks = jose.createRemoteJWKSet(new URL(as.jwks_uri));
    const { payload, protectedHeader } = await jose.jwtVerify(token.jws, jwks, {
      issuer: provider.issuer, audience: token.clientId, algorithms: [alg], typ: 'JWT'
    });
    assert.equal(payload.sub, user.id);
    assert.ok(protectedHeader.kid, 'no kid in the header');
    // The same token for another audience, or with one byte of its
    // signature changed, is refused: the check above can fail.
    await assert.rejects(jose.jwtVerify(token.jws, jwks, { issuer: provider.issuer, audience: 'someone-else' }),
      { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
    const [h, p, s] = token.jws.split('.');
    const bytes = Buffer.from(s, 'base64url');
    bytes[0] ^= 0x01;
    await assert.rejects(jose.jwtVerify(`${h}.${p}.${bytes.toString('base64url')}`, jwks),
      { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });
}

check('Interface_17_12 the JWKS has a public RS256 and ES256 signing key, no private part', async () => {
  const response = await fetch(as.jwks_uri);
  assert.equal(response.status, 200);
  const { keys } = await response.json();
  for (const alg of ['RS256', 'ES256']) {
    const key = keys.find((k) => k.alg === alg);
    assert.ok(key, `no ${alg} key in ${JSON.stringify(keys)}`);
    assert.equal(key.use, 'sig');
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[secret], undefined, `${alg} key has ${secret}`);
    // jose imports each as a public key.
    const imported = await jose.importJWK(key, alg);
    assert.equal(imported.type, 'public');
  }
});
