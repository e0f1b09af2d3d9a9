// TEST DOUBLE: an "evil" OpenID provider for authd's upstream sign-in tests
// (interface.md 18.2). oidc-provider cannot be made to emit a bad ID token,
// so this small provider does it on demand: it answers discovery, JWKS,
// authorization (at once, no page: the person is `--subject`), the token
// endpoint and userinfo like an ordinary provider, and signs its ID token
// correctly in mode `good` or forges it in one of the other modes:
//
//   good             RS256, right iss, aud, nonce, exp
//   alg-none         {"alg":"none"} and no signature
//   hs256-public-key HS256 with the provider's own public key (PEM) as the
//                    HMAC secret (the algorithm-confusion attack)
//   wrong-iss        another issuer
//   wrong-aud        another audience
//   expired          exp ten minutes ago
//   wrong-nonce      a nonce the client never sent
//   no-nonce         no nonce at all
//   replay-first     the first ID token it issued, again (its nonce is that
//                    earlier flow's)
//   unknown-kid      signed by a key the JWKS never lists
//   bad-signature    the payload changed after signing
//   error-markup     the authorization answers error=access_denied with an
//                    error_description full of markup
//
//   node tests/interop/upstream/evil_idp.mjs --port-file FILE \
//     --client-id ID --client-secret-file FILE --redirect-uri URI [--mode M] [--port N]
//
// Test control: POST /_test/mode {"mode": M}; PUT /_test/account {"sub",
// "email", "email_verified", "name"}; GET /_test/seen: what the last
// authorization request and token request carried (parameter names,
// code_challenge_method, whether a nonce and a verifier were sent); GET
// /_test/issued: the last token answer (access, refresh and ID token,
// scope, expires_in), for the tests of tokens kept by authd (18.5).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

const MODES = ['good', 'alg-none', 'hs256-public-key', 'wrong-iss', 'wrong-aud', 'expired', 'wrong-nonce',
  'no-nonce', 'replay-first', 'unknown-kid', 'bad-signature', 'error-markup'];

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'port-file': { type: 'string' },
    'client-id': { type: 'string', default: 'authd-evil' },
    'client-secret-file': { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true, default: [] },
    mode: { type: 'string', default: 'good' }
  }
});
if (!args['client-secret-file'] || args['redirect-uri'].length === 0 || !MODES.includes(args.mode)) {
  console.error(`evil_idp: --client-secret-file, --redirect-uri required; --mode one of ${MODES.join(' ')}`);
  process.exit(2);
}
const clientSecret = fs.readFileSync(args['client-secret-file'], 'utf8').trim();

let mode = args.mode;
let account = { sub: 'evil-subject-1', email: 'mallory@evil.example', email_verified: true, name: 'Mallory' };
let issuer = '';
let firstIdToken = null;
const seen = { authorize: null, token: null };
let issued = null;  // the last token answer, for GET /_test/issued
const codes = new Map();  // code -> {nonce, challenge, redirectUri}
const accessTokens = new Map();

function newKey(kid) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}
const key = newKey(`evil-${crypto.randomUUID()}`);
const strayKey = newKey(`stray-${crypto.randomUUID()}`);  // never published

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function signRs256(header, payload, signer) {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${crypto.sign('sha256', Buffer.from(input), signer.privateKey).toString('base64url')}`;
}

function idToken(grant) {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: issuer, sub: account.sub, aud: args['client-id'], iat: now, exp: now + 300, nonce: grant.nonce,
    email: account.email, email_verified: account.email_verified, name: account.name
  };
  for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
  const header = { alg: 'RS256', typ: 'JWT', kid: key.kid };
  switch (mode) {
    case 'alg-none':
      return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    case 'hs256-public-key': {
      const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64(claims)}`;
      const secret = key.publicKey.export({ type: 'spki', format: 'pem' });
      return `${input}.${crypto.createHmac('sha256', secret).update(input).digest('base64url')}`;
    }
    case 'wrong-iss': return signRs256(header, { ...claims, iss: `${issuer}/another-issuer` }, key);
    case 'wrong-aud': return signRs256(header, { ...claims, aud: 'another-client' }, key);
    case 'expired': return signRs256(header, { ...claims, iat: now - 1200, exp: now - 600 }, key);
    case 'wrong-nonce': return signRs256(header, { ...claims, nonce: crypto.randomBytes(16).toString('base64url') }, key);
    case 'no-nonce': {
      const { nonce, ...rest } = claims;
      return signRs256(header, rest, key);
    }
    case 'replay-first': return firstIdToken ?? signRs256(header, claims, key);
    case 'unknown-kid': return signRs256({ ...header, kid: strayKey.kid }, claims, strayKey);
    case 'bad-signature': {
      const [h, , s] = signRs256(header, claims, key).split('.');
      return `${h}.${b64({ ...claims, sub: `${claims.sub}-changed` })}.${s}`;
    }
    default: {
      const token = signRs256(header, claims, key);
      firstIdToken ??= token;
      return token;
    }
  }
}

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response, status, body, headers = {}) {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}

function discovery(response) {
  sendJson(response, 200, {
    issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`, jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'], subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'], code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: ['openid', 'email', 'profile']
  });
}

function authorize(response, url) {
  const p = url.searchParams;
  seen.authorize = {
    params: [...p.keys()].sort(), code_challenge_method: p.get('code_challenge_method'),
    has_nonce: Boolean(p.get('nonce')), has_state: Boolean(p.get('state')), scope: p.get('scope')
  };
  const redirectUri = p.get('redirect_uri');
  if (p.get('client_id') !== args['client-id'] || !args['redirect-uri'].includes(redirectUri)) {
    response.writeHead(400, { 'Content-Type': 'text/plain' });
    return response.end('unknown client or redirect_uri');
  }
  const back = new URL(redirectUri);
  if (mode === 'error-markup') {
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('error_description', '<img src=x onerror="document.title=\'pwned\'"><b id="injected">evil</b>');
  } else {
    const code = crypto.randomBytes(16).toString('base64url');
    codes.set(code, { nonce: p.get('nonce') ?? undefined, challenge: p.get('code_challenge'), redirectUri, scope: p.get('scope') ?? '' });
    back.searchParams.set('code', code);
  }
  if (p.get('state') !== null) back.searchParams.set('state', p.get('state'));
  back.searchParams.set('iss', issuer);
  response.writeHead(303, { Location: back.href });
  return response.end();
}

function clientCredentials(request, form) {
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
  if (!basic) return [form.get('client_id'), form.get('client_secret')];
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return [decodeURIComponent(decoded.slice(0, colon)), decodeURIComponent(decoded.slice(colon + 1))];
}

async function token(request, response) {
  const form = new URLSearchParams(await readBody(request));
  const [id, secret] = clientCredentials(request, form);
  const secretBytes = Buffer.from(secret ?? '');
  const expected = Buffer.from(clientSecret);
  seen.token = { params: [...form.keys()].sort(), has_verifier: Boolean(form.get('code_verifier')) };
  if (id !== args['client-id'] || secretBytes.length !== expected.length || !crypto.timingSafeEqual(secretBytes, expected)) {
    return sendJson(response, 401, { error: 'invalid_client' });
  }
  const grant = codes.get(form.get('code') ?? '');
  codes.delete(form.get('code') ?? '');
  const verifier = form.get('code_verifier') ?? '';
  if (!grant || form.get('grant_type') !== 'authorization_code' || form.get('redirect_uri') !== grant.redirectUri ||
      (grant.challenge && crypto.createHash('sha256').update(verifier).digest('base64url') !== grant.challenge)) {
    return sendJson(response, 400, { error: 'invalid_grant' });
  }
  const access = crypto.randomBytes(24).toString('base64url');
  accessTokens.set(access, { ...account });
  issued = {
    access_token: access, token_type: 'Bearer', expires_in: 300, scope: grant.scope,
    refresh_token: crypto.randomBytes(24).toString('base64url'), id_token: idToken(grant)
  };
  return sendJson(response, 200, issued);
}

function userinfo(request, response) {
  const bearer = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const claims = bearer && accessTokens.get(bearer);
  if (!claims) return sendJson(response, 401, { error: 'invalid_token' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  return sendJson(response, 200, claims);
}

async function control(request, response, url) {
  if (url.pathname === '/_test/mode' && request.method === 'POST') {
    const wanted = JSON.parse(await readBody(request)).mode;
    if (!MODES.includes(wanted)) return sendJson(response, 400, { error: `modes: ${MODES.join(' ')}` });
    mode = wanted;
    return sendJson(response, 200, { mode });
  }
  if (url.pathname === '/_test/account' && request.method === 'PUT') {
    account = JSON.parse(await readBody(request));
    return sendJson(response, 200, account);
  }
  if (url.pathname === '/_test/seen') return sendJson(response, 200, seen);
  if (url.pathname === '/_test/issued') return sendJson(response, 200, issued ?? {});
  return sendJson(response, 404, { error: 'not found' });
}

async function route(request, response) {
  const url = new URL(request.url, 'http://localhost');
  if (url.pathname === '/.well-known/openid-configuration') return discovery(response);
  if (url.pathname === '/jwks') return sendJson(response, 200, { keys: [key.jwk] });
  if (url.pathname === '/authorize') return authorize(response, url);
  if (url.pathname === '/token' && request.method === 'POST') return token(request, response);
  if (url.pathname === '/userinfo') return userinfo(request, response);
  if (url.pathname.startsWith('/_test/')) return control(request, response, url);
  return sendJson(response, 404, { error: 'not found' });
}

const server = http.createServer((request, response) => {
  Promise.resolve(route(request, response)).catch((error) => {
    console.error('evil_idp:', error);
    if (!response.headersSent) sendJson(response, 500, { error: 'server_error' });
  });
});
server.listen(Number(args.port), '127.0.0.1', () => {
  const { port } = server.address();
  issuer = `http://127.0.0.1:${port}`;
  if (args['port-file']) fs.writeFileSync(args['port-file'], `${port}\n`);
  console.log(`evil_idp (test double, forges ID tokens on demand) ${issuer} mode ${mode}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
