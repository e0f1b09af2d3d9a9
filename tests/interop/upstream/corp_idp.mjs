// TEST DOUBLE: "a company identity provider" for authd's upstream sign-in
// tests (interface.md 18). It is npm's oidc-provider, a certified OpenID
// provider library, configured with a handful of accounts, a plain login
// page and no consent page (the client is the company's own). Nothing here
// is authd's code or ships with it.
//
//   node tests/interop/upstream/corp_idp.mjs --port-file FILE \
//     --client-id authd --client-secret-file FILE \
//     --redirect-uri http://127.0.0.1:PORT/signin/corp/callback [--redirect-uri ...] \
//     [--port N] [--token-auth-method client_secret_basic|client_secret_post]
//     [--id-token-alg RS256|ES256] [--accounts FILE.json] [--password P]
//
// Its issuer is http://127.0.0.1:<port> (the port written, with a line
// break, to --port-file once it listens). PKCE (S256) is required of every
// client, as a careful company IdP would. The login page
// (/interaction/<uid>) has #login, #password, #idp-submit and #idp-cancel
// (cancel answers the client with error=access_denied).
//
// Accounts (login name: claims), unless --accounts names a JSON file of the
// same shape:
//   alice   alice@corp.example    email_verified true
//   ursula  ursula@corp.example   email_verified false
//   carol   carol@corp.example    email_verified true (a test changes it)
//   nomail  no e-mail at all
// Each has the password of --password (default "corp password").
//
// Test control, on the same port, for the tests only:
//   PUT /_test/accounts/<login>  {"email": ..., "email_verified": ..., "name": ...}
//     creates or replaces an account (a member left out is absent); the
//     subject stays the login's, so a changed e-mail is the same person.
//   GET /_test/accounts/<login>  the account's claims.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'port-file': { type: 'string' },
    'client-id': { type: 'string', default: 'authd' },
    'client-secret-file': { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true, default: [] },
    'token-auth-method': { type: 'string', default: 'client_secret_basic' },
    'id-token-alg': { type: 'string', default: 'RS256' },
    accounts: { type: 'string' },
    password: { type: 'string', default: 'corp password' }
  }
});
if (!args['client-secret-file'] || args['redirect-uri'].length === 0) {
  console.error('corp_idp: --client-secret-file and at least one --redirect-uri are required');
  process.exit(2);
}

const accounts = new Map(Object.entries(args.accounts
  ? JSON.parse(fs.readFileSync(args.accounts, 'utf8'))
  : {
      alice: { email: 'alice@corp.example', email_verified: true, name: 'Alice Corp' },
      ursula: { email: 'ursula@corp.example', email_verified: false, name: 'Ursula Unverified' },
      carol: { email: 'carol@corp.example', email_verified: true, name: 'Carol Changes' },
      nomail: { name: 'No Mail' }
    }));

// A subject that is not the login name, as real providers' are opaque:
// stable for a login whatever its e-mail becomes.
function subjectOf(login) {
  return `corp-${crypto.createHash('sha256').update(login).digest('hex').slice(0, 16)}`;
}
const loginOfSubject = (sub) => [...accounts.keys()].find((login) => subjectOf(login) === sub);

function signingKeys() {
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return [{ ...rsa, kid: `rsa-${crypto.randomUUID()}`, alg: 'RS256', use: 'sig' },
    { ...ec, kid: `ec-${crypto.randomUUID()}`, alg: 'ES256', use: 'sig' }];
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginPage(uid, clientId, message = '') {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Corp sign-in (test double)</title></head>
<body><h1>Company account (test double)</h1><p>Sign in to continue to ${escapeHtml(clientId)}.</p>
${message ? `<p id="idp-error">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Login <input id="login" name="login" autocomplete="off"></label>
<label>Password <input id="password" name="password" type="password"></label>
<button id="idp-submit" type="submit">Sign in</button>
<button id="idp-cancel" type="submit" formaction="/interaction/${escapeHtml(uid)}/abort">Cancel</button>
</form></body></html>`;
}

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response, status, body) {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

// The login page and its two answers; consent is never asked (below).
async function interaction(provider, request, response, url) {
  const [, , uid, action] = url.pathname.split('/');
  const details = await provider.interactionDetails(request, response);
  if (details.uid !== uid) return sendJson(response, 400, { error: 'interaction mismatch' });
  if (request.method === 'GET' && !action) {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    return response.end(loginPage(uid, details.params.client_id));
  }
  if (request.method === 'POST' && action === 'abort') {
    return provider.interactionFinished(request, response,
      { error: 'access_denied', error_description: 'The user cancelled.' }, { mergeWithLastSubmission: false });
  }
  if (request.method === 'POST' && action === 'login') {
    const form = new URLSearchParams(await readBody(request));
    const login = form.get('login') ?? '';
    const typed = Buffer.from(form.get('password') ?? '');
    const expected = Buffer.from(args.password);
    const passwordOk = typed.length === expected.length && crypto.timingSafeEqual(typed, expected);
    if (!accounts.has(login) || !passwordOk) {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return response.end(loginPage(uid, details.params.client_id, 'Wrong login or password.'));
    }
    return provider.interactionFinished(request, response,
      { login: { accountId: subjectOf(login) } }, { mergeWithLastSubmission: false });
  }
  return sendJson(response, 404, { error: 'not found' });
}

async function control(request, response, url) {
  const login = decodeURIComponent(url.pathname.slice('/_test/accounts/'.length));
  if (!login) return sendJson(response, 404, { error: 'no login' });
  if (request.method === 'PUT') {
    accounts.set(login, JSON.parse(await readBody(request)));
    return sendJson(response, 200, { sub: subjectOf(login), ...accounts.get(login) });
  }
  if (request.method === 'GET' && accounts.has(login)) {
    return sendJson(response, 200, { sub: subjectOf(login), ...accounts.get(login) });
  }
  return sendJson(response, 404, { error: 'no such account' });
}

let provider = null;
const server = http.createServer((request, response) => {
  const url = new URL(request.url, 'http://localhost');
  const fail = (error) => {
    console.error('corp_idp:', error);
    if (!response.headersSent) sendJson(response, 500, { error: 'server_error' });
  };
  if (url.pathname.startsWith('/interaction/')) return interaction(provider, request, response, url).catch(fail);
  if (url.pathname.startsWith('/_test/accounts/')) return control(request, response, url).catch(fail);
  return provider.callback()(request, response);
});

server.listen(Number(args.port), '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  provider = new Provider(issuer, {
    clients: [{
      client_id: args['client-id'],
      client_secret: fs.readFileSync(args['client-secret-file'], 'utf8').trim(),
      redirect_uris: args['redirect-uri'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: args['token-auth-method'],
      id_token_signed_response_alg: args['id-token-alg']
    }],
    jwks: { keys: signingKeys() },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    pkce: { methods: ['S256'], required: () => true },
    responseTypes: ['code'],
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The e-mail in the ID token as well as at userinfo, as Google and
    // Entra ID do.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    // The company's own client: consent is implied, every scope asked for
    // is granted at once.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      const grant = grantId ? await ctx.oidc.provider.Grant.find(grantId)
        : new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope([...ctx.oidc.requestParamScopes].join(' '));
      grant.addOIDCClaims([...ctx.oidc.requestParamClaims]);
      await grant.save();
      return grant;
    },
    async findAccount(ctx, sub) {
      const login = loginOfSubject(sub);
      if (!login) return undefined;
      return {
        accountId: sub,
        async claims() {
          const account = accounts.get(login);  // read now: a changed e-mail shows at once
          return { sub, ...account };
        }
      };
    },
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Corp error</title><p id="idp-error">${escapeHtml(out.error)}: ${escapeHtml(out.error_description ?? '')}</p>`;
    }
  });
  if (args['port-file']) fs.writeFileSync(args['port-file'], `${port}\n`);
  console.log(`corp_idp (test double) ${issuer} client ${args['client-id']} -> ${args['redirect-uri'].join(' ')}`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
