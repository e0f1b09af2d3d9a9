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
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import {
  freePort, log, logOf, registerClient, setup, startProcess, startProvider, suite, waitForHttp,
  workDir
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const check = suite();

let provider;
let apache;  // {base, handle, errorLog}

function apacheConfig({ dir, port, issuer, clientId, clientSecret }) {
  const modules = {
    mpm_event_module: 'mod_mpm_event.so',
    authn_core_module: 'mod_authn_core.so',
    authz_core_module: 'mod_authz_core.so',
    authz_user_module: 'mod_authz_user.so',
    include_module: 'mod_include.so',
    auth_openidc_module: 'mod_auth_openidc.so'
  };
  const user = process.getuid() === 0 ? 'User www-data\nGroup www-data\n' : '';
  return `${Object.entries(modules).map(([name, file]) => `LoadModule ${name} ${MODULES}/${file}`).join('\n')}
ServerRoot "${dir}"
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${dir}/apache.pid"
DefaultRuntimeDir "${dir}/run"
ErrorLog "${dir}/error.log"
LogLevel warn auth_openidc:info
${user}DocumentRoot "${dir}/htdocs"
<Directory "${dir}/htdocs">
  Options +Includes
  Require all granted
</Directory>

OIDCCryptoPassphrase ${crypto.randomBytes(32).toString('hex')}
OIDCOAuthServerMetadataURL ${issuer}/.well-known/oauth-authorization-server
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

async function startApache(registered, port) {
  fs.chmodSync(workDir, 0o711);
  const dir = path.join(workDir, 'apache-rs');
  fs.mkdirSync(path.join(dir, 'htdocs', 'api'), { recursive: true, mode: 0o755 });
  fs.mkdirSync(path.join(dir, 'run'), { mode: 0o755 });
  for (const d of [dir, path.join(dir, 'htdocs'), path.join(dir, 'htdocs', 'api')]) fs.chmodSync(d, 0o755);
  fs.writeFileSync(path.join(dir, 'htdocs', 'api', 'whoami.shtml'), PAGE, { mode: 0o644 });
  const conf = path.join(dir, 'httpd.conf');
  fs.writeFileSync(conf, apacheConfig({
    dir, port, issuer: provider.issuer, clientId: registered.clientId, clientSecret: registered.clientSecret
  }), { mode: 0o600 });
  const handle = startProcess('apache', APACHE, ['-X', '-d', dir, '-f', conf]);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(handle, `${base}/`);
  log('apache (resource server) on', base);
  return { base, handle, errorLog: path.join(dir, 'error.log') };
}

function apacheErrors() {
  try {
    return fs.readFileSync(apache.errorLog, 'utf8');
  } catch {
    return '';
  }
}

setup(async () => {
  provider = await startProvider(AUTHD);
  const registered = await registerClient(provider, {
    name: 'Apache resource server', type: 'confidential', redirectUris: ['https://api.example.com/unused'],
    grantTypes: ['client_credentials'], scopes: [], introspection: true
  });
  apache = await startApache(registered, await freePort());
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
  error.message += `\n--- apache error.log ---\n${apacheErrors()}\n--- apache stdout ---\n${logOf(apache.handle)}`;
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
