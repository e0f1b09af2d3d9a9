// The guide's working example (docs/guide/sign-in-with-authd.md,
// examples/express-oidc/): an Express application signing its users in with
// authd through openid-client (interface.md 17.14). A fresh authd, the
// application registered as a confidential client and started as its
// README says, then Chromium: the application's home page, its "Sign in
// with authd" link, authd's sign-in page, and back on the application,
// which shows the user's e-mail address from userinfo; signing out of the
// application shows the link again.
//
//   node tests/interop/express_example.test.mjs <path to authd>
//
// SQLite, or PostgreSQL when AUTHD_TEST_POSTGRES is set
// (scripts/with-postgres.sh).
import assert from 'node:assert/strict';
import path from 'node:path';

import {
  addUser, freePort, log, logOf, newBrowserContext, registerClient, ROOT, shot, signIn, startProcess,
  setup, startProvider, suite, waitFor
} from './support.mjs';

const AUTHD = path.resolve(process.argv[2] ?? process.env.AUTHD ?? 'build/authd');
const EXAMPLE = path.join(ROOT, 'examples', 'express-oidc', 'server.mjs');
const EMAIL = 'dave@example.com';
const check = suite();

let provider;
let app;  // {base, handle}

async function startExample(registered, port) {
  const base = `http://127.0.0.1:${port}`;
  const handle = startProcess('express-example', process.execPath, [EXAMPLE], {
    cwd: path.dirname(EXAMPLE),
    env: {
      ...process.env,
      AUTHD_ISSUER: provider.issuer,
      CLIENT_ID: registered.clientId,
      CLIENT_SECRET: registered.clientSecret,
      PORT: String(port),
      BASE_URL: base
    }
  });
  // It prints its address once it listens (after discovery).
  await waitFor('the example to listen', () => {
    if (handle.exited) throw new Error(`the example exited (${handle.code}):\n${logOf(handle)}`);
    return logOf(handle).includes(`example app on ${base}`);
  });
  log('example on', base);
  return { base, handle };
}

setup(async () => {
  provider = await startProvider(AUTHD);
  await addUser(provider, EMAIL, ['--display-name', 'Dave Example']);
  const port = await freePort();
  const registered = await registerClient(provider, {
    name: 'Example app', type: 'confidential', firstParty: true,
    redirectUris: [`http://127.0.0.1:${port}/callback`]
  });
  app = await startExample(registered, port);
});

check('Interface_17_14 the guide example signs a person in with authd and shows their e-mail address', async () => {
  const context = await newBrowserContext();
  const page = await context.newPage();
  try {
    await page.goto(`${app.base}/`);
    await page.locator('#signin').click();
    await signIn(page, provider.issuer, EMAIL, { screenshot: 'interop-express-example' });
    await page.waitForURL(`${app.base}/`, { timeout: 20_000 });
    await page.locator('#signed-in').waitFor({ timeout: 10_000 });
    await shot(page, 'interop-express-example-signed-in.png');
    assert.equal(await page.locator('#email').textContent(), EMAIL);
    assert.equal(await page.locator('#name').textContent(), 'Dave Example');
    await page.locator('#signout').click();
    await page.locator('#signin').waitFor({ timeout: 10_000 });
  } catch (error) {
    error.message += `\n--- example ---\n${logOf(app.handle)}\n--- page ---\n${await page.content().catch(() => '')}`;
    throw error;
  } finally {
    await context.close();
  }
});
