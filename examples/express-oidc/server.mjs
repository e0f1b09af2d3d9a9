// An Express web application that signs its users in with authd, the
// OpenID Connect provider (docs/guide/sign-in-with-authd.md), through
// openid-client: the authorization code flow with PKCE, state and nonce;
// the ID token validated (issuer, audience, nonce, signature); the user's
// claims from userinfo kept in the application's own session.
//
//   AUTHD_ISSUER=https://auth.example.com CLIENT_ID=... CLIENT_SECRET=... \
//   BASE_URL=https://app.example.com SESSION_SECRET=... node server.mjs
//
// See README.md beside this file.
import crypto from 'node:crypto';

import express from 'express';
import session from 'express-session';
import * as client from 'openid-client';

const PORT = Number(process.env.PORT ?? 3000);
const HOST = process.env.HOST ?? '127.0.0.1';
const BASE_URL = (process.env.BASE_URL ?? `http://127.0.0.1:${PORT}`).replace(/\/$/, '');
const REDIRECT_URI = `${BASE_URL}/callback`;
const SCOPE = 'openid email profile';

for (const name of ['AUTHD_ISSUER', 'CLIENT_ID', 'CLIENT_SECRET']) {
  if (!process.env[name]) {
    console.error(`${name} is not set (see README.md)`);
    process.exit(2);
  }
}

// Discovery: authd's /.well-known/openid-configuration. Plain http is
// accepted only for an issuer on the loopback interface (a local try-out).
const issuer = new URL(process.env.AUTHD_ISSUER);
const loopback = issuer.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(issuer.hostname);
const config = await client.discovery(issuer, process.env.CLIENT_ID, undefined,
  client.ClientSecretBasic(process.env.CLIENT_SECRET), loopback ? { execute: [client.allowInsecureRequests] } : {});
// Check the ID token's signature against authd's JWKS too, not only TLS.
client.enableNonRepudiationChecks(config);

const app = express();
app.use(session({
  name: 'example_session',
  secret: process.env.SESSION_SECRET ?? crypto.randomBytes(32).toString('hex'),
  resave: false,
  saveUninitialized: false,
  cookie: { httpOnly: true, sameSite: 'lax', secure: BASE_URL.startsWith('https:') }
}));

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title, body) {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title>${body}</html>`;
}

app.get('/', (req, res) => {
  const user = req.session.user;
  if (!user) {
    res.send(page('Example app', '<h1>Example app</h1><p><a id="signin" href="/login">Sign in with authd</a></p>'));
    return;
  }
  res.send(page('Example app', `<h1>Example app</h1>
<p id="signed-in">Signed in as <span id="email">${escapeHtml(user.email)}</span></p>
<p>Name: <span id="name">${escapeHtml(user.name)}</span>, subject <code id="sub">${escapeHtml(user.sub)}</code></p>
<form method="post" action="/logout"><button id="signout">Sign out</button></form>`));
});

// Sends the browser to authd; what the callback must check is kept in the
// session: the PKCE verifier, the state and the nonce.
app.get('/login', async (req, res) => {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  req.session.pending = { codeVerifier, state, nonce };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce
  });
  req.session.save(() => res.redirect(url.href));
});

// authd's answer: the code exchanged, the ID token validated, the claims
// read from userinfo; a new session for the signed-in user.
app.get('/callback', async (req, res, next) => {
  const pending = req.session.pending;
  if (!pending) {
    res.status(400).send(page('Sign-in failed', '<p id="error">No sign-in was started here. <a href="/">Start again</a></p>'));
    return;
  }
  delete req.session.pending;
  const tokens = await client.authorizationCodeGrant(config, new URL(req.originalUrl, BASE_URL), {
    pkceCodeVerifier: pending.codeVerifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    idTokenExpected: true
  });
  const claims = tokens.claims();
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  req.session.regenerate((error) => {
    if (error) return next(error);
    req.session.user = { sub: claims.sub, email: userinfo.email, name: userinfo.name };
    return req.session.save(() => res.redirect('/'));
  });
});

app.post('/logout', (req, res) => {
  req.session.destroy(() => res.redirect('/'));
});

// A refused or failed sign-in (an error from authd, a bad state, a token
// that does not validate): said on a page, never with a token in it.
app.use((error, req, res, next) => {
  console.error('sign-in failed:', error.code ?? '', error.message);
  res.status(400).send(page('Sign-in failed',
    `<p id="error">Sign-in failed: ${escapeHtml(error.error ?? error.code ?? 'error')}. <a href="/">Start again</a></p>`));
});

app.listen(PORT, HOST, () => console.log(`example app on ${BASE_URL}, signing in with ${issuer.href}`));
