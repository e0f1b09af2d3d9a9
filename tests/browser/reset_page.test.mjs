// Browser test of the password-reset flow (interface.md 7.2, 7.3).
//
//   node tests/browser/reset_page.test.mjs <path to authd>
//
// Starts its own SMTP receiver (tests/support/smtp_sink.py) and authd
// delivering to it over SMTP, asks for a reset mail, takes the link from the
// received message and opens it in headless Chromium (Debian's, driven by
// playwright-core): the token leaves the address bar, a mismatched
// confirmation is refused without a request, a password equal to the e-mail
// gets the server's message (and does not use the link up), a new password
// typed with the keyboard is accepted, the new password logs in and the old
// one does not, and the used link then shows its own message. Screenshots
// go to test-artifacts/ at the repository root. Every process it starts is
// stopped on every path out. Exit status 0 on success.
import assert from 'node:assert/strict';
import path from 'node:path';

import {
  launchBrowser, linkFromMail, log, logOf, openPage, postJson, runAuthd, runTest, shot,
  startAuthd, waitForStatus, FAST_HASHING
} from './support.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);

const EMAIL = 'alice@example.com';
const OLD_PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase \u{1F511}';

// The page's messages (src/web/reset.js), as the user reads them.
const SUCCESS_TEXT = /your password has been changed/i;
const USED_LINK_TEXT = /already been used, it has expired/i;
const MISMATCH_TEXT = /do not match/i;
const SAME_AS_EMAIL_TEXT = /must not be your e-mail address/i;
const TOO_SHORT_TEXT = /too short/i;

// Types into the focused field, Tab to the confirmation, types, Enter: the
// form works without a mouse.
async function typeAndSubmit(page, password, confirmation) {
  await page.locator('#password').focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(password);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'confirmation', 'Tab goes to the confirmation field');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(confirmation);
  await page.keyboard.press('Enter');
}

// ---------------------------------------------------------------------------

async function main() {
  assert.ok(AUTHD, 'usage: node reset_page.test.mjs <path to authd>');
  // 1. The SMTP receiver, then authd delivering to it.
  const { authd, base, database, mailDir } = await startAuthd(AUTHD);

  const added = await runAuthd(AUTHD, ['user', 'add', '--email', EMAIL, '--database', database, ...FAST_HASHING], OLD_PASSWORD);
  assert.equal(added.code, 0, `user add failed: ${added.output}`);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: OLD_PASSWORD }), 200);

  // 2. The mail, received over SMTP, with the link.
  assert.equal(await postJson(base, 'forgot', { email: EMAIL }), 200);
  const mail = await linkFromMail(mailDir, 1, base, 'reset');
  assert.match(mail.to ?? '', /alice@example\.com/);
  log('link received:', mail.link.replace(/token=.*/, 'token=<redacted>'));

  const context = await launchBrowser();

  // 3. The link opens the page; the token leaves the address bar.
  const page = await openPage(context, 'reset');
  await page.goto(mail.link);
  await page.locator('#reset-form').waitFor({ state: 'visible' });
  assert.equal(page.url(), `${base}/reset`, 'the fragment is removed from the address bar');
  assert.equal(await page.evaluate(() => window.location.hash), '');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'password', 'the first field has the focus');
  assert.equal(await page.getByLabel('New password', { exact: true }).getAttribute('autocomplete'), 'new-password');
  assert.equal(await page.getByLabel('Repeat the new password', { exact: true }).getAttribute('autocomplete'), 'new-password');

  // 4. Client-side checks: no request is sent.
  await typeAndSubmit(page, NEW_PASSWORD, `${NEW_PASSWORD}!`);
  log('mismatch:', await waitForStatus(page, MISMATCH_TEXT));
  assert.equal(await page.locator('#confirmation').getAttribute('aria-invalid'), 'true');
  await shot(page, 'reset-page-mismatch.png');
  await typeAndSubmit(page, 'short', 'short');
  log('too short:', await waitForStatus(page, TOO_SHORT_TEXT));
  assert.equal(page.posts, 0, 'client-side checks send nothing');

  // 5. A rule only the server knows: the password equals the e-mail. The
  //    400 does not use the link up (interface.md 7.2).
  await typeAndSubmit(page, EMAIL.toUpperCase(), EMAIL.toUpperCase());
  log('same as e-mail:', await waitForStatus(page, SAME_AS_EMAIL_TEXT));
  assert.equal(page.posts, 1);
  assert.equal(await page.locator('#reset-form').isVisible(), true, 'the form stays for another try');

  // 6. The new password, by keyboard: success.
  await typeAndSubmit(page, NEW_PASSWORD, NEW_PASSWORD);
  log('success:', await waitForStatus(page, SUCCESS_TEXT));
  assert.equal(page.posts, 2);
  assert.equal(await page.locator('#reset-form').isVisible(), false, 'the form is gone after success');
  assert.equal(await page.locator('h1').textContent(), 'Password changed');
  await shot(page, 'reset-page-success.png');
  assert.deepEqual(page.cspViolations, []);

  // 7. The new password logs in, the old one does not.
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: NEW_PASSWORD }), 200);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: OLD_PASSWORD }), 401);

  // 8. The same link again, on a phone-sized screen: the used-link message.
  const again = await openPage(context, 'reset', { width: 360, height: 740 });
  await again.goto(mail.link);
  await again.locator('#reset-form').waitFor({ state: 'visible' });
  await shot(again, 'reset-page-form-narrow.png');
  await typeAndSubmit(again, 'yet another passphrase', 'yet another passphrase');
  log('used link:', await waitForStatus(again, USED_LINK_TEXT));
  assert.equal(await again.locator('#reset-form').isVisible(), false);
  assert.equal(await again.locator('h1').textContent(), 'This link cannot be used');
  await shot(again, 'reset-page-used-link.png');
  const fits = await again.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(fits, 'no horizontal scrolling on a narrow screen');
  assert.deepEqual(again.cspViolations, []);
  assert.equal(await postJson(base, 'login', { email: EMAIL, password: NEW_PASSWORD }), 200,
    'the refused second reset changed nothing');

  // 9. The page without a token says so and shows no form.
  const bare = await openPage(context, 'reset', { width: 360, height: 740 });
  await bare.goto(`${base}/reset`);
  log('no token:', await waitForStatus(bare, /does not contain a reset code/i));
  assert.equal(await bare.locator('#reset-form').isVisible(), false);
  await shot(bare, 'reset-page-missing-token.png');

  // 10. Answers this server does not give on demand, played by the browser
  //     in place of the server: each has its own message, and the form
  //     stays for another try.
  const stubbed = await openPage(context, 'reset');
  const answers = [
    { reply: { status: 429, body: { code: 429, message: 'Too Many Requests' } }, text: /too many attempts/i },
    { reply: { status: 503, body: { code: 503, message: 'Service Unavailable' } }, text: /try again in a moment/i },
    { reply: { status: 500, body: { code: 500, message: 'Internal Server Error' } }, text: /went wrong on our side/i },
    {
      reply: { status: 400, body: { code: 400, message: 'Bad Request', detail: 'password: must be at most 255 characters' } },
      text: /too long/i
    },
    { reply: 'network', text: /could not reach the server/i }
  ];
  let answer = null;
  await stubbed.route('**/reset', (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    assert.equal(route.request().headers()['content-type'], 'application/json');
    const sent = JSON.parse(route.request().postData());
    assert.deepEqual(Object.keys(sent).sort(), ['password', 'token']);
    assert.equal(sent.token, 'authdrt_stubbed');
    if (answer.reply === 'network') return route.abort('connectionrefused');
    return route.fulfill({
      status: answer.reply.status,
      contentType: 'application/json',
      body: JSON.stringify(answer.reply.body)
    });
  });
  await stubbed.goto(`${base}/reset#token=authdrt_stubbed`);
  await stubbed.locator('#reset-form').waitFor({ state: 'visible' });
  for (answer of answers) {
    await typeAndSubmit(stubbed, 'a fine passphrase', 'a fine passphrase');
    log(`${answer.reply.status ?? answer.reply}:`, await waitForStatus(stubbed, answer.text));
    assert.equal(await stubbed.locator('#reset-form').isVisible(), true);
    assert.equal(await stubbed.locator('#submit').isEnabled(), true);
  }
  assert.equal(stubbed.posts, answers.length);

  assert.equal(authd.exited, false, `authd exited:\n${logOf(authd)}`);
  log('ok');
}

await runTest('reset_page', main);
