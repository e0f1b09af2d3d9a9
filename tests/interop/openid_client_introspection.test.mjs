// Interoperability (interface.md 17.7, 17.11, 17.14) with openid-client, a
// certified OpenID relying party for Node.js, as a machine client and as a
// resource server: it discovers authd, gets a token with the
// client_credentials grant, and introspects tokens (RFC 7662) with
// client_secret_basic: the client's own, a user's access token from a code
// flow in Chromium, an unknown one, one whose client was deleted, and one
// bound to another client's resource.
//
//   node tests/interop/openid_client_introspection.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh).
import assert from 'node:assert/strict';
import path from 'node:path';

import * as client from 'openid-client';

import {
  addUser, authorizeInBrowser, registerClient, setup, startCallbackServer, startProvider, suite
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const EMAIL = 'dana@example.com';
const check = suite();

let provider;
let callback;
let user;
let resourceServer;  // registered with introspection: true

setup(async () => {
  provider = await startProvider(AUTHD);
  callback = await startCallbackServer();
  user = await addUser(provider, EMAIL);
  resourceServer = await registerClient(provider, {
    name: 'Reports API', type: 'confidential', redirectUris: ['https://api.example.com/unused'],
    grantTypes: ['client_credentials'], scopes: [], introspection: true
  });
});

async function configure(registered) {
  return client.discovery(new URL(provider.issuer), registered.clientId, undefined,
    client.ClientSecretBasic(registered.clientSecret), { execute: [client.allowInsecureRequests] });
}

async function machineClient(name) {
  return registerClient(provider, {
    name, type: 'confidential', redirectUris: ['https://machine.example.com/unused'],
    grantTypes: ['client_credentials'], scopes: []
  });
}

check('Interface_17_11 openid-client finds the introspection endpoint in discovery', async () => {
  const metadata = (await configure(resourceServer)).serverMetadata();
  assert.equal(metadata.introspection_endpoint, `${provider.issuer}/oauth2/introspect`);
  assert.ok(metadata.grant_types_supported.includes('client_credentials'));
});

check('Interface_17_7 openid-client gets a client_credentials token, and introspects it', async () => {
  const machine = await machineClient('Nightly job');
  const tokens = await client.clientCredentialsGrant(await configure(machine));
  assert.match(tokens.access_token, /^authdat_[A-Za-z0-9_-]{43}$/);
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.refresh_token, undefined);
  assert.equal(tokens.id_token, undefined);
  const answer = await client.tokenIntrospection(await configure(resourceServer), tokens.access_token);
  assert.equal(answer.active, true);
  assert.equal(answer.sub, machine.clientId);
  assert.equal(answer.client_id, machine.clientId);
  assert.equal(answer.iss, provider.issuer);
  assert.equal(answer.aud, provider.issuer);
  assert.equal(answer.token_type, 'Bearer');
  assert.ok(answer.exp > answer.iat);
});

check('Interface_17_11 openid-client introspects a user access token from a code flow', async () => {
  const web = await registerClient(provider, {
    name: 'Web app', type: 'confidential', firstParty: true, redirectUris: [callback.redirectUri]
  });
  const config = await configure(web);
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri, scope: 'openid email', state,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256'
  });
  const response = await authorizeInBrowser(provider, callback, url, EMAIL);
  const tokens = await client.authorizationCodeGrant(config, response,
    { pkceCodeVerifier: codeVerifier, expectedState: state }, { redirect_uri: callback.redirectUri });
  const answer = await client.tokenIntrospection(await configure(resourceServer), tokens.access_token,
    { token_type_hint: 'access_token' });
  assert.equal(answer.active, true);
  assert.equal(answer.sub, user.id);
  assert.equal(answer.client_id, web.clientId);
  assert.equal(answer.scope, 'openid email');
});

check('Interface_17_11 unknown, revoked and foreign tokens are inactive, and say nothing more', async () => {
  const introspector = await configure(resourceServer);
  assert.deepEqual({ ...(await client.tokenIntrospection(introspector, 'authdat_not-a-token')) },
    { active: false });
  // A token bound to another client's resource (RFC 8707) is foreign.
  const other = await registerClient(provider, {
    name: 'Billing API', type: 'confidential', redirectUris: ['https://billing.example.com/unused'],
    grantTypes: ['client_credentials'], scopes: [], introspection: true
  });
  const bound = await client.clientCredentialsGrant(await configure(other),
    { resource: 'https://billing.example.com/' });
  assert.deepEqual({ ...(await client.tokenIntrospection(introspector, bound.access_token)) },
    { active: false });
  assert.equal((await client.tokenIntrospection(await configure(other), bound.access_token)).active, true);
  // Deleting a client revokes its tokens (17.3.1).
  const machine = await machineClient('Retired job');
  const tokens = await client.clientCredentialsGrant(await configure(machine));
  assert.equal((await client.tokenIntrospection(introspector, tokens.access_token)).active, true);
  const deleted = await fetch(`${provider.admin}/admin/clients/${machine.clientId}`,
    { method: 'DELETE', headers: { Authorization: `Bearer ${provider.adminKey}` } });
  assert.equal(deleted.status, 204);
  assert.deepEqual({ ...(await client.tokenIntrospection(introspector, tokens.access_token)) },
    { active: false });
});

check('Interface_17_11 a client without introspection: true is refused', async () => {
  const machine = await machineClient('Curious job');
  const config = await configure(machine);
  const token = (await client.clientCredentialsGrant(config)).access_token;
  await assert.rejects(client.tokenIntrospection(config, token), (error) => {
    assert.equal(error.error, 'unauthorized_client');
    assert.equal(error.status, 403);
    return true;
  });
});
