// Browser test of the sign-up confirmation page (interface.md 11.4, 11.5).
//
//   node tests/browser/verify_page.test.mjs <path to authd>
//
// Starts its own SMTP receiver (tests/support/smtp_sink.py) and authd with
// --signup open delivering to it over SMTP, signs up, takes the link from
// the received message and opens it in headless Chromium (Debian's, driven
// by playwright-core): the page is served under a strict
// Content-Security-Policy, the token leaves the address bar, the page asks
// for the password chosen at the sign-up and sends nothing before it; a
// wrong password is refused with the form kept (the link stays usable), the
// chosen one confirms and the page says the account is ready, the chosen
// password logs in, the used link is then refused, a link without a token
// says so without a request, and the answers this server does not give on
// demand (429, 503, 500, no network), played by the browser in its place,
// each have a message and the form sends again.
// Screenshots go to test-artifacts/ at the repository root. Every process
// it starts is stopped on every path out. Exit status 0 on success.
import assert from 'node:assert/strict';
import path from 'node:path';

import {
  launchBrowser, linkFromMail, log, logOf, openPage, postJson, runTest, shot, startAuthd,
  waitForStatus
} from './support.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);

const EMAIL = 'newcomer@example.com';
const PASSWORD = 'a sign-up passphrase \u{1F511}';

// The page's messages (src/web/verify.js), as the user reads them.
const SUCCESS_TEXT = /your account has been created/i;
const REFUSED_TEXT = /password is not the one chosen/i;
const EMPTY_TEXT = /enter the password you chose/i;
const NO_TOKEN_TEXT = /does not contain a confirmation code/i;

async function main() {
  assert.ok(AUTHD, 'usage: node verify_page.test.mjs <path to authd>');
  // 1. The SMTP receiver, then authd delivering to it, sign-up open.
  const { authd, base, mailDir } = await startAuthd(AUTHD, ['--signup', 'open']);

  // 2. The sign-up, and its mail received over SMTP, with the link.
  assert.equal(await postJson(base, 'signup', { email: EMAIL, password: PASSWORD, displayName: 'New Comer' }), 200);
  const mail = await linkFromMail(mailDir, 1, base, 'verify');
  assert.match(mail.to ?? '', /newcomer@example\.com/);
  log('link received:', mail.link.replace(/token=.*/, 'token=<redacted>'));
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: PASSWORD }), 401, 'no account before the link');

  const context = await launchBrowser();

  // 3. The link opens the page, which asks for the password and sends
  //    nothing yet; the token leaves the address bar.
  const page = await openPage(context, 'verify');
  const served = await page.goto(mail.link);
  const headers = served.headers();
  assert.match(headers['content-security-policy'] ?? '', /default-src 'none'/);
  assert.doesNotMatch(headers['content-security-policy'] ?? '', /unsafe-inline/);
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['x-frame-options'], 'DENY');
  await page.locator('#password').waitFor({ state: 'visible' });
  assert.equal(page.url(), `${base}/verify`, 'the fragment is removed from the address bar');
  assert.equal(await page.evaluate(() => window.location.hash), '');
  assert.equal(page.posts, 0, 'opening the link confirms nothing');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'password');
  await shot(page, 'verify-page-form.png');

  // 4. Empty: said without a request. A wrong password: refused, the form
  //    stays and the link is still good. The chosen one: the account.
  await page.locator('#submit').click();
  log('empty:', await waitForStatus(page, EMPTY_TEXT));
  assert.equal(page.posts, 0);
  await page.locator('#password').fill('not the chosen passphrase');
  await page.locator('#submit').click();
  log('wrong password:', await waitForStatus(page, REFUSED_TEXT));
  assert.equal(await page.locator('#verify-form').isVisible(), true, 'the form stays for another try');
  assert.equal(await page.locator('#password').getAttribute('aria-invalid'), 'true');
  await shot(page, 'verify-page-refused.png');
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: PASSWORD }), 401, 'still no account');
  await page.locator('#password').fill(PASSWORD);
  await page.locator('#submit').click();
  log('success:', await waitForStatus(page, SUCCESS_TEXT));
  assert.equal(page.posts, 2);
  assert.equal(await page.locator('h1').textContent(), 'Your account is ready');
  assert.equal(await page.locator('#verify-form').isVisible(), false);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'status', 'the outcome has the focus');
  await shot(page, 'verify-page-success.png');
  assert.deepEqual(page.cspViolations, []);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: PASSWORD }), 200);

  // 5. The same link again, on a phone-sized screen: refused.
  const again = await openPage(context, 'verify', { width: 360, height: 740 });
  await again.goto(mail.link);
  await again.locator('#password').fill(PASSWORD);
  await again.locator('#submit').click();
  log('used link:', await waitForStatus(again, REFUSED_TEXT));
  await shot(again, 'verify-page-used-link.png');
  const fits = await again.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(fits, 'no horizontal scrolling on a narrow screen');
  assert.deepEqual(again.cspViolations, []);

  // 6. The page without a token says so and sends nothing.
  const bare = await openPage(context, 'verify', { width: 360, height: 740 });
  await bare.goto(`${base}/verify`);
  log('no token:', await waitForStatus(bare, NO_TOKEN_TEXT));
  assert.equal(bare.posts, 0);
  await shot(bare, 'verify-page-missing-token.png');

  // 7. Answers this server does not give on demand, played by the browser
  //    in place of the server: each has its own message and the form sends
  //    the same token again; the last try succeeds.
  const stubbed = await openPage(context, 'verify');
  const answers = [
    { reply: { status: 429, body: { code: 429, message: 'Too Many Requests' } }, text: /too many attempts/i },
    { reply: { status: 503, body: { code: 503, message: 'Service Unavailable' } }, text: /try again in a moment/i },
    { reply: { status: 500, body: { code: 500, message: 'Internal Server Error' } }, text: /went wrong on our side/i },
    { reply: 'network', text: /could not reach the server/i },
    { reply: { status: 201, body: { email: EMAIL } }, text: SUCCESS_TEXT }
  ];
  let next = 0;
  await stubbed.route('**/verify', (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    assert.equal(route.request().headers()['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(route.request().postData()), { token: 'authdsu_stubbed', password: PASSWORD });
    const answer = answers[Math.min(next++, answers.length - 1)];
    if (answer.reply === 'network') return route.abort('connectionrefused');
    return route.fulfill({
      status: answer.reply.status,
      contentType: 'application/json',
      body: JSON.stringify(answer.reply.body)
    });
  });
  await stubbed.goto(`${base}/verify#token=authdsu_stubbed`);
  await stubbed.locator('#password').fill(PASSWORD);
  for (const [i, answer] of answers.entries()) {
    await stubbed.locator('#submit').click();
    log(`${answer.reply.status ?? answer.reply}:`, await waitForStatus(stubbed, answer.text));
    const last = i === answers.length - 1;
    assert.equal(await stubbed.locator('#verify-form').isVisible(), !last);
    if (i === 0) await shot(stubbed, 'verify-page-retry.png');
  }
  assert.equal(stubbed.posts, answers.length);
  assert.deepEqual(stubbed.cspViolations, []);

  assert.equal(authd.exited, false, `authd exited:\n${logOf(authd)}`);
  log('ok');
}

await runTest('verify_page', main);
