// Interoperability (interface.md 17.11, 17.14) of the introspection
// endpoint with a gateway that introspects by itself: Apache's
// mod_auth_openidc (Debian's libapache2-mod-auth-openidc) as an OAuth 2.0
// resource server (`AuthType oauth20`), registered at authd with
// `introspection: true`, protects /api/ with opaque access tokens, without
// a shim of ours between them. It finds the introspection endpoint in
// authd's RFC 8414 metadata (`OIDCOAuthServerMetadataURL`; a plain
// `OIDCOAuthIntrospectionEndpoint` must be https://, which the loopback
// issuer of the tests is not). Introspection
// results are not cached (`OIDCOAuthTokenIntrospectionInterval -1`), so
// that a revoked token is refused at once. A client_credentials token is
// accepted and its subject reaches the page as REMOTE_USER; an unknown
// token, a token whose client was deleted, and a token bound to another
// resource (RFC 8707: foreign to Apache's client) are refused.
//
//   node tests/interop/mod_auth_openidc_introspection.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh).
import assert from 'node:assert/strict';
import path from 'node:path';

import { apacheErrors, startApache } from './apache.mjs';
import { freePort, logOf, registerClient, setup, startProvider, suite } from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const check = suite();

let provider;
let apache;  // {base, handle, errorLog}

function oidcConfig({ issuer, clientId, clientSecret }) {
  return `OIDCOAuthServerMetadataURL ${issuer}/.well-known/oauth-authorization-server
OIDCOAuthIntrospectionEndpointAuth client_secret_basic
OIDCOAuthClientID ${clientId}
OIDCOAuthClientSecret ${clientSecret}
OIDCOAuthTokenIntrospectionInterval -1
OIDCOAuthRemoteUserClaim sub
<Location /api>
  AuthType oauth20
  Require valid-user
  SetOutputFilter INCLUDES
  ForceType text/plain
</Location>
`;
}

const PAGE = 'caller <!--#echo var="REMOTE_USER" -->\n';

function startResourceServer(registered, port) {
  return startApache('apache-rs', port, { 'api/whoami.shtml': PAGE }, oidcConfig({
    issuer: provider.issuer, clientId: registered.clientId, clientSecret: registered.clientSecret
  }));
}

setup(async () => {
  provider = await startProvider(AUTHD);
  const registered = await registerClient(provider, {
    name: 'Apache resource server', type: 'confidential', redirectUris: ['https://api.example.com/unused'],
    grantTypes: ['client_credentials'], scopes: [], introspection: true
  });
  apache = await startResourceServer(registered, await freePort());
});

async function machineClient(name) {
  return registerClient(provider, {
    name, type: 'confidential', redirectUris: ['https://machine.example.com/unused'],
    grantTypes: ['client_credentials'], scopes: []
  });
}

// POST /oauth2/token, grant_type=client_credentials, client_secret_basic.
async function clientToken(registered, extra = {}) {
  const basic = Buffer.from(`${registered.clientId}:${registered.clientSecret}`).toString('base64');
  const response = await fetch(`${provider.issuer}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...extra })
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).access_token;
}

async function callApi(token) {
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const response = await fetch(`${apache.base}/api/whoami.shtml`, { headers });
  return { status: response.status, body: await response.text() };
}

function withLogs(error) {
  error.message += `\n--- apache error.log ---\n${apacheErrors(apache)}\n--- apache stdout ---\n${logOf(apache.handle)}`;
  return error;
}

check('Interface_17_11 mod_auth_openidc accepts an opaque token after introspecting it at authd', async () => {
  const machine = await machineClient('Report job');
  const token = await clientToken(machine);
  try {
    const answer = await callApi(token);
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.body.trim(), `caller ${machine.clientId}`);
    assert.equal((await callApi()).status, 401);
  } catch (error) {
    throw withLogs(error);
  }
});

check('Interface_17_11 mod_auth_openidc refuses unknown, revoked and foreign tokens', async () => {
  try {
    assert.equal((await callApi('authdat_not-a-token-at-all')).status, 401);
    // A token bound to another resource (RFC 8707), of another client:
    // foreign to Apache's client, so inactive.
    const other = await machineClient('Billing job');
    assert.equal((await callApi(await clientToken(other, { resource: 'https://billing.example.com/' }))).status, 401);
    // Revoked: its client is deleted, which ends its tokens (17.3.1).
    const machine = await machineClient('Retired job');
    const token = await clientToken(machine);
    assert.equal((await callApi(token)).status, 200);
    const deleted = await fetch(`${provider.admin}/admin/clients/${machine.clientId}`,
      { method: 'DELETE', headers: { Authorization: `Bearer ${provider.adminKey}` } });
    assert.equal(deleted.status, 204);
    assert.equal((await callApi(token)).status, 401);
  } catch (error) {
    throw withLogs(error);
  }
});
