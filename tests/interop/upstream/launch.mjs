// Starts the upstream test doubles of this folder (corp_idp.mjs,
// github_double.mjs, evil_idp.mjs) as processes of a test run
// (../support.mjs: stopped on every path out, logs printed on failure), each
// on a free loopback port read from its port file, with a client secret in a
// file of the run's folder. Each returns what authd's configuration needs
// (issuer or endpoints, client id, secret file) and the double's test
// control as functions.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { logOf, startProcess, waitFor, workDir } from '../support.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function secretFile(name) {
  const file = path.join(workDir, `${name}.secret`);
  fs.writeFileSync(file, `${crypto.randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  return file;
}

async function launch(name, script, args) {
  const portFile = path.join(workDir, `${name}.port`);
  const handle = startProcess(name, process.execPath, [path.join(HERE, script), '--port-file', portFile, ...args]);
  const port = await waitFor(`${name}'s port file`, () => {
    if (handle.exited) throw new Error(`${name} exited (${handle.code}):\n${logOf(handle)}`);
    try {
      const text = fs.readFileSync(portFile, 'utf8');
      return text.endsWith('\n') ? Number(text.trim()) : 0;
    } catch {
      return 0;
    }
  });
  return { handle, base: `http://127.0.0.1:${port}` };
}

async function controlCall(base, method, route, body) {
  const response = await fetch(`${base}${route}`, {
    method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body)
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const redirectArgs = (uris) => [].concat(uris).flatMap((uri) => ['--redirect-uri', uri]);

// npm oidc-provider as the company's IdP. `redirectUris`: authd's
// {public_url}/signin/{name}/callback (one or more).
export async function startCorpIdp({ name = 'corp_idp', clientId = 'authd', redirectUris, extraArgs = [] }) {
  const clientSecretFile = secretFile(name);
  const { handle, base } = await launch(name, 'corp_idp.mjs', ['--client-id', clientId,
    '--client-secret-file', clientSecretFile, ...redirectArgs(redirectUris), ...extraArgs]);
  return {
    handle, issuer: base, clientId, clientSecretFile,
    setAccount: (login, claims) => controlCall(base, 'PUT', `/_test/accounts/${encodeURIComponent(login)}`, claims),
    account: (login) => controlCall(base, 'GET', `/_test/accounts/${encodeURIComponent(login)}`)
  };
}

// The GitHub-shaped OAuth 2 server (a test double of GitHub's API).
export async function startGithubDouble({ name = 'github_double', clientId = 'authd-github', redirectUris }) {
  const clientSecretFile = secretFile(name);
  const { handle, base } = await launch(name, 'github_double.mjs', ['--client-id', clientId,
    '--client-secret-file', clientSecretFile, ...redirectArgs(redirectUris)]);
  return {
    handle, base, clientId, clientSecretFile,
    authorizationEndpoint: `${base}/login/oauth/authorize`,
    tokenEndpoint: `${base}/login/oauth/access_token`,
    userinfoEndpoint: `${base}/user`,
    emailsEndpoint: `${base}/user/emails`,
    setUser: (login, user) => controlCall(base, 'PUT', `/_test/users/${encodeURIComponent(login)}`, user)
  };
}

// The provider that forges ID tokens on demand (evil_idp.mjs lists the modes).
export async function startEvilIdp({ name = 'evil_idp', clientId = 'authd-evil', redirectUris, mode = 'good' }) {
  const clientSecretFile = secretFile(name);
  const { handle, base } = await launch(name, 'evil_idp.mjs', ['--client-id', clientId,
    '--client-secret-file', clientSecretFile, '--mode', mode, ...redirectArgs(redirectUris)]);
  return {
    handle, issuer: base, clientId, clientSecretFile,
    setMode: (wanted) => controlCall(base, 'POST', '/_test/mode', { mode: wanted }),
    setAccount: (claims) => controlCall(base, 'PUT', '/_test/account', claims),
    seen: () => controlCall(base, 'GET', '/_test/seen')
  };
}
