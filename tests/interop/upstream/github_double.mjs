// TEST DOUBLE of GitHub's OAuth apps and REST API, for authd's `oauth2`
// upstream kind (interface.md 18.1). Not GitHub, not authd's code: it
// answers the four routes authd uses the way GitHub documents them, on one
// loopback port (GitHub splits them between github.com and api.github.com):
//
//   GET  /login/oauth/authorize     client_id, redirect_uri (exact match with
//                                   the registered one), scope, state, and
//                                   code_challenge (S256) when sent; shows a
//                                   page (#login, #authorize) that redirects
//                                   back with code and state
//   POST /login/oauth/access_token  client_id + client_secret in the form or
//                                   HTTP Basic; code, redirect_uri,
//                                   code_verifier; a form-encoded answer
//                                   unless Accept: application/json; a bad
//                                   code is a 200 with error=bad_verification_code
//                                   as GitHub does
//   GET  /user                      Authorization: Bearer|token; {id, login,
//                                   name, email (the public one, maybe null), ...}
//   GET  /user/emails               [{email, primary, verified, visibility}];
//                                   404 without the user:email scope
//
// The API routes refuse a request without User-Agent (403), as GitHub does.
//
//   node tests/interop/upstream/github_double.mjs --port-file FILE \
//     --client-id ID --client-secret-file FILE --redirect-uri URI [--port N]
//
// Users (login: what the API says):
//   octocat   id 583231, public e-mail octocat@github.example, verified
//   private   id 1001, public e-mail null, primary octo-private@github.example verified
//   unverified id 1002, public e-mail null, primary unverified@github.example NOT verified
// Test control: PUT /_test/users/<login> {"id", "name", "email", "emails": [...]}
// creates or replaces one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'port-file': { type: 'string' },
    'client-id': { type: 'string', default: 'authd-github' },
    'client-secret-file': { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true, default: [] }
  }
});
if (!args['client-secret-file'] || args['redirect-uri'].length === 0) {
  console.error('github_double: --client-secret-file and --redirect-uri are required');
  process.exit(2);
}
const clientSecret = fs.readFileSync(args['client-secret-file'], 'utf8').trim();

const users = new Map(Object.entries({
  octocat: {
    id: 583231, name: 'The Octocat', email: 'octocat@github.example',
    emails: [{ email: 'octocat@github.example', primary: true, verified: true, visibility: 'public' }]
  },
  private: {
    id: 1001, name: 'Private Octo', email: null,
    emails: [{ email: 'octo-private@github.example', primary: true, verified: true, visibility: 'private' },
      { email: 'old@github.example', primary: false, verified: false, visibility: null }]
  },
  unverified: {
    id: 1002, name: null, email: null,
    emails: [{ email: 'unverified@github.example', primary: true, verified: false, visibility: 'private' }]
  }
}));

const codes = new Map();  // code -> {login, redirectUri, challenge, scope, expires}
const tokens = new Map();  // access token -> {login, scope}

function sameSecret(a, b) {
  const x = Buffer.from(a ?? '');
  const y = Buffer.from(b ?? '');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response, status, type, body, headers = {}) {
  response.writeHead(status, { 'Content-Type': type, ...headers });
  response.end(body);
}
const sendJson = (response, status, body) => send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));

function authorizePage(url) {
  const hidden = [...url.searchParams].map(([k, v]) =>
    `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>GitHub (test double)</title></head>
<body><h1>Authorize application (GitHub test double)</h1>
<form method="post" action="/login/oauth/authorize">${hidden}
<label>Username <input id="login" name="login"></label>
<button id="authorize" type="submit">Authorize</button></form></body></html>`;
}

async function authorize(request, response, url) {
  const params = request.method === 'POST' ? new URLSearchParams(await readBody(request)) : url.searchParams;
  if (params.get('client_id') !== args['client-id']) return send(response, 404, 'text/plain', 'Not Found');
  const redirectUri = params.get('redirect_uri') ?? args['redirect-uri'][0];
  if (!args['redirect-uri'].includes(redirectUri)) {
    return send(response, 400, 'text/html', '<p id="gh-error">The redirect_uri is not associated with this application.</p>');
  }
  if (request.method === 'GET') return send(response, 200, 'text/html; charset=utf-8', authorizePage(url));
  const login = params.get('login');
  if (!users.has(login)) return send(response, 200, 'text/html; charset=utf-8', authorizePage(new URL(`?${params}`, url)));
  const code = crypto.randomBytes(10).toString('hex');
  const method = params.get('code_challenge_method');
  if (params.get('code_challenge') && method !== 'S256') return send(response, 400, 'text/plain', 'S256 only');
  codes.set(code, {
    login, redirectUri, challenge: params.get('code_challenge'), scope: params.get('scope') ?? '',
    expires: Date.now() + 10 * 60_000
  });
  const back = new URL(redirectUri);
  back.searchParams.set('code', code);
  if (params.get('state') !== null) back.searchParams.set('state', params.get('state'));
  return send(response, 302, 'text/plain', '', { Location: back.href });
}

function tokenAnswer(request, response, body) {
  const accept = request.headers.accept ?? '';
  if (accept.includes('application/json')) return sendJson(response, 200, body);
  return send(response, 200, 'application/x-www-form-urlencoded; charset=utf-8', new URLSearchParams(body).toString());
}

async function accessToken(request, response) {
  const text = await readBody(request);
  const json = (request.headers['content-type'] ?? '').includes('application/json');
  const form = json ? new URLSearchParams(Object.entries(JSON.parse(text || '{}'))) : new URLSearchParams(text);
  let id = form.get('client_id');
  let secret = form.get('client_secret');
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    id = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
  }
  if (id !== args['client-id'] || !sameSecret(secret, clientSecret)) {
    return tokenAnswer(request, response, { error: 'incorrect_client_credentials',
      error_description: 'The client_id and/or client_secret passed are incorrect.' });
  }
  const grant = codes.get(form.get('code') ?? '');
  codes.delete(form.get('code') ?? '');  // single use
  const verifier = form.get('code_verifier');
  const pkceOk = !grant?.challenge ||
    (verifier && crypto.createHash('sha256').update(verifier).digest('base64url') === grant.challenge);
  const redirectOk = !form.get('redirect_uri') || form.get('redirect_uri') === grant?.redirectUri;
  if (!grant || grant.expires < Date.now() || !pkceOk || !redirectOk) {
    return tokenAnswer(request, response, { error: 'bad_verification_code',
      error_description: 'The code passed is incorrect or expired.' });
  }
  const token = `gho_${crypto.randomBytes(18).toString('base64url')}`;
  tokens.set(token, { login: grant.login, scope: grant.scope });
  return tokenAnswer(request, response, { access_token: token, token_type: 'bearer', scope: grant.scope });
}

function api(request, response, url) {
  if (!request.headers['user-agent']) {
    return send(response, 403, 'text/plain',
      'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.');
  }
  const bearer = /^(?:Bearer|token) (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const grant = bearer && tokens.get(bearer);
  if (!grant) return sendJson(response, 401, { message: 'Bad credentials', status: '401' });
  const user = users.get(grant.login);
  if (url.pathname === '/user') {
    return sendJson(response, 200, {
      login: grant.login, id: user.id, node_id: `U_${user.id}`, type: 'User', site_admin: false,
      avatar_url: `https://avatars.github.example/u/${user.id}`, name: user.name, email: user.email
    });
  }
  const scopes = grant.scope.split(/[ ,]+/);
  if (!scopes.includes('user:email') && !scopes.includes('user')) {
    return sendJson(response, 404, { message: 'Not Found', status: '404' });
  }
  return sendJson(response, 200, user.emails);
}

async function control(request, response, url) {
  const login = decodeURIComponent(url.pathname.slice('/_test/users/'.length));
  if (request.method !== 'PUT' || !login) return sendJson(response, 404, { error: 'not found' });
  users.set(login, JSON.parse(await readBody(request)));
  return sendJson(response, 200, users.get(login));
}

async function route(request, response) {
  const url = new URL(request.url, 'http://localhost');
  if (url.pathname === '/login/oauth/authorize') return authorize(request, response, url);
  if (url.pathname === '/login/oauth/access_token' && request.method === 'POST') return accessToken(request, response);
  if ((url.pathname === '/user' || url.pathname === '/user/emails') && request.method === 'GET') {
    return api(request, response, url);
  }
  if (url.pathname.startsWith('/_test/users/')) return control(request, response, url);
  return sendJson(response, 404, { message: 'Not Found' });
}

const server = http.createServer((request, response) => {
  route(request, response).catch((error) => {
    console.error('github_double:', error);
    if (!response.headersSent) sendJson(response, 500, { message: 'server error' });
  });
});
server.listen(Number(args.port), '127.0.0.1', () => {
  const { port } = server.address();
  if (args['port-file']) fs.writeFileSync(args['port-file'], `${port}\n`);
  console.log(`github_double (test double of GitHub) http://127.0.0.1:${port} client ${args['client-id']}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
