// Browser test of the page of sign-in by mail (interface.md 19.6) and,
// through it, of the sign-in by mail itself (interface.md 19.1 to 19.5).
//
//   node tests/browser/email_signin_page.test.mjs <path to authd>
//
// Starts its own SMTP receiver (tests/support/smtp_sink.py) and authd with
// --email-signin on, --signup open and a session cookie (13.5), delivering
// over SMTP, and drives headless Chromium (Debian's, driven by
// playwright-core) through the page: it asks for the address, the mail
// arrives at the SMTP receiver with a link and a code; (a) the code typed on
// the page signs in (after a mistyped one is refused with the form kept),
// and the browser holds the session cookie; (b) the link opened in the
// browser sends nothing until its button signs in, and the token is gone
// from the address bar; (c) an account with TOTP is asked for its code on
// the page, a wrong code is refused and the right one signs in; (d) a used
// link shows that it cannot be used and offers a new mail; (e) an unknown
// address gets the sign-up link, whose form posts to ../signup. Answers
// this server does not give on demand (403, 429, 503, 500, no network) are
// played by the browser in its place. The passkeys page links to this one
// when it is served, and hides the link on a 404. Screenshots go to
// test-artifacts/ at the repository root. Every process it starts is
// stopped on every path out. Exit status 0 on success.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import {
  launchBrowser, log, logOf, openPage, postJson, runAuthd, runTest, shot, startAuthd, textParts,
  waitFor, waitForStatus, FAST_HASHING
} from './support.mjs';
import { codeAfter, currentStep, totp } from '../support/totp.mjs';

const AUTHD = process.argv[2] && path.resolve(process.argv[2]);

const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';  // with a TOTP
const CAROL = 'carol@example.com';  // no account
const PASSWORD = 'correct horse battery staple';
const COOKIE = 'authd_session';

// The page's messages (src/web/email.js), as the user reads them.
const SENT_TEXT = /a mail with a link and an 8-digit code is on its way/i;
const SIGNED_IN_TEXT = (email) => new RegExp(`signed in as ${email.replace(/[.+]/g, '\\$&')}`, 'i');
const CODE_REFUSED_TEXT = /code was not accepted/i;
const BAD_CODE_TEXT = /the code has 8 digits/i;
const LINK_UNUSABLE_TEXT = /link cannot be used: it has been used already/i;
const SECOND_FACTOR_REFUSED_TEXT = /that code was not accepted/i;
const DISABLED_TEXT = /account is disabled/i;
const SIGNED_UP_TEXT = /check your mail.*link to confirm it/i;

// Runs one clause's check, naming it in the log and in a failure.
async function clause(name, check) {
  try {
    await check();
  } catch (error) {
    error.message = `${name}: ${error.message}`;
    throw error;
  }
  log('ok -', name);
}

// ---------------------------------------------------------------------------
// Mail.

// The first message in `dir`, not taken before, to `to` that holds
// `pattern` in a text part; waited for. Mails of one test may arrive in any
// order (a random delay each, --reset-mail-delay), and others come between
// (the notification of a second factor added: interface.md 14.3.1).
const taken = new Set();
async function mailTo(dir, to, pattern) {
  return waitFor(`a mail to ${to} with ${pattern}`, () => {
    let names = [];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.eml') && !taken.has(n)).sort();
    } catch {
      return null;
    }
    for (const name of names) {
      const raw = fs.readFileSync(path.join(dir, name), 'utf8');
      const recipient = /^To:\s*(.*)$/im.exec(raw)?.[1]?.trim() ?? '';
      if (!recipient.includes(to)) continue;
      const found = textParts(raw).map((text) => pattern.exec(text)?.[0]).filter(Boolean);
      if (found.length === 0) continue;
      taken.add(name);
      return { raw, found };
    }
    return null;
  }, 30_000);  // authd delays a mail by up to 2 s, then polls
}

function escaped(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// The link of a sign-in mail (interface.md 19.2) to `to`, with its raw text.
async function signinMail(dir, base, to) {
  const { raw, found } = await mailTo(dir, to, new RegExp(`${escaped(base)}/signin/email#token=[A-Za-z0-9_-]+`));
  assert.ok(found.every((link) => link === found[0]), 'the parts of the mail disagree on the link');
  return { link: found[0], raw };
}

// The 8-digit code of a sign-in mail: alone on its own line, indented by 4
// spaces, in the text part (interface.md 19.2).
function codeFromMail(raw) {
  const codes = textParts(raw).map((text) => /^ {4}(\d{8})\s*$/m.exec(text)?.[1]).filter(Boolean);
  assert.ok(codes.length > 0, `no code in the mail:\n${raw}`);
  assert.ok(codes.every((code) => code === codes[0]), 'the parts of the mail disagree on the code');
  return codes[0];
}

async function postWithToken(base, route, token, body) {
  const response = await fetch(`${base}/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

// Gives `email` a confirmed TOTP factor (12.1); returns its secret and the
// step whose code confirmed it (no code of that step or earlier is
// accepted again: 12.3.4).
async function enrolTotp(base, email) {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD })
  });
  assert.equal(login.status, 200);
  const token = /^Bearer (\S+)$/.exec(login.headers.get('authorization') ?? '')?.[1];
  assert.ok(token, 'a session token');
  const enrolled = await postWithToken(base, 'mfa/totp', token, { password: PASSWORD });
  assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
  const step = currentStep();
  const confirmed = await postWithToken(base, 'mfa/totp/confirm', token, { code: totp(enrolled.body.secret, step) });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return { secret: enrolled.body.secret, step };
}

// ---------------------------------------------------------------------------

async function main() {
  assert.ok(AUTHD, 'usage: node email_signin_page.test.mjs <path to authd>');
  const { authd, base, database, mailDir } = await startAuthd(AUTHD, [
    '--email-signin', 'on', '--signup', 'open', '--session-cookie', COOKIE,
    // Several mails to one address within a minute.
    '--email-signin-mail-limit-short', '100/1m', '--email-signin-mail-limit-long', '100/1h'
  ]);
  for (const email of [ALICE, BOB]) {
    const added = await runAuthd(AUTHD, ['user', 'add', '--email', email, '--database', database,
      ...FAST_HASHING], PASSWORD);
    assert.equal(added.code, 0, `user add failed: ${added.output}`);
  }
  const context = await launchBrowser();
  const pages = [];
  const open = async (viewport) => {
    const page = await openPage(context, 'email/verify', viewport);
    page.responses = [];
    page.on('response', (response) => page.responses.push({ url: response.url(), status: response.status() }));
    pages.push(page);
    return page;
  };

  const page = await open();
  await clause('Interface 19.6: the page is served under the Content-Security-Policy of /reset, with ../reset.css', async () => {
    const served = await page.goto(`${base}/signin/email`);
    assert.equal(served.status(), 200);
    const headers = served.headers();
    assert.equal(headers['content-type'], 'text/html; charset=utf-8');
    assert.match(headers['content-security-policy'] ?? '', /default-src 'none'/);
    assert.match(headers['content-security-policy'] ?? '', /require-trusted-types-for 'script'/);
    assert.doesNotMatch(headers['content-security-policy'] ?? '', /unsafe-inline/);
    assert.equal(headers['x-frame-options'], 'DENY');
    assert.equal(headers['referrer-policy'], 'no-referrer');
    await page.locator('#email').waitFor({ state: 'visible' });
    const loaded = page.responses.map((r) => `${r.status} ${new URL(r.url).pathname}`);
    assert.ok(loaded.includes('200 /reset.css'), `the style sheet, one level up: ${loaded}`);
    assert.ok(loaded.includes('200 /signin/email.js'), `the page's own script: ${loaded}`);
    assert.ok(loaded.includes('200 /common.js'), `the shared script, one level up: ${loaded}`);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'email');
    assert.equal(page.posts, 0);
    await shot(page, 'email-signin-page-address.png');
  });

  let code;
  await clause('Interface 19.6, 19.1, 19.2: the page asks for the address; the mail arrives at the SMTP receiver', async () => {
    await page.locator('#email').fill(`  ${ALICE.toUpperCase()} `);
    await page.locator('#request-submit').click();
    await page.locator('#code').waitFor({ state: 'visible' });
    log('requested:', await page.locator('#code-intro').textContent());
    assert.match(await page.locator('#code-intro').textContent(), SENT_TEXT);
    assert.match(await page.locator('#code-intro').textContent(), /alice@example\.com/, 'the canonical address');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'code');
    const { raw } = await signinMail(mailDir, base, ALICE);
    code = codeFromMail(raw);
    assert.match(code, /^\d{8}$/);
    await shot(page, 'email-signin-page-code.png');
  });

  await clause('Interface 19.6, 19.3: (a) the code typed on the page signs in; a mistyped one is refused first', async () => {
    await page.locator('#code').fill('1234');
    await page.locator('#code-submit').click();
    log('short code:', await waitForStatus(page, BAD_CODE_TEXT));
    assert.equal(page.posts, 0, 'a code that is not 8 digits is not sent');
    const wrong = code === '00000000' ? '11111111' : '00000000';
    await page.locator('#code').fill(wrong);
    await page.locator('#code-submit').click();
    log('wrong code:', await waitForStatus(page, CODE_REFUSED_TEXT));
    assert.equal(await page.locator('#code-form').isVisible(), true, 'the form stays for another try');
    assert.equal(await page.locator('#code').getAttribute('aria-invalid'), 'true');
    // As a mail reader may copy it: spaces inside.
    await page.locator('#code').fill(`${code.slice(0, 4)} ${code.slice(4)}`);
    await page.locator('#code-submit').click();
    log('code:', await waitForStatus(page, SIGNED_IN_TEXT(ALICE)));
    assert.equal(page.posts, 2);
    assert.equal(await page.locator('h1').textContent(), 'You are signed in');
    assert.equal(await page.locator('#code-form').isVisible(), false);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'status', 'the outcome has the focus');
    // The session cookie of 13.5 is the browser's: /me answers with it.
    const cookies = await context.cookies(base);
    assert.ok(cookies.some((c) => c.name === COOKIE && c.httpOnly), `the session cookie: ${JSON.stringify(cookies.map((c) => c.name))}`);
    const me = await page.evaluate(async () => {
      const response = await fetch('../me', { credentials: 'same-origin', cache: 'no-store' });
      return { status: response.status, body: await response.json() };
    });
    assert.equal(me.status, 200);
    assert.equal(me.body.email, ALICE);
    await shot(page, 'email-signin-page-signed-in.png');
  });

  let link;
  await clause('Interface 19.6, 19.3: (b) the link opened in the browser sends nothing; its button signs in; the token is gone from the address bar', async () => {
    assert.equal(await postJson(base, 'signin/email', { email: ALICE }), 200);
    link = (await signinMail(mailDir, base, ALICE)).link;
    log('link received:', link.replace(/token=.*/, 'token=<redacted>'));
    const byLink = await open({ width: 360, height: 740 });
    await byLink.goto(link);
    await byLink.locator('#link-submit').waitFor({ state: 'visible' });
    assert.equal(byLink.url(), `${base}/signin/email`, 'the fragment is removed from the address bar');
    assert.equal(await byLink.evaluate(() => window.location.hash), '');
    assert.equal(await byLink.evaluate(() => document.activeElement.id), 'link-submit');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(byLink.posts, 0, 'opening the link signs nothing in');
    await shot(byLink, 'email-signin-page-link.png');
    await byLink.locator('#link-submit').click();
    log('link:', await waitForStatus(byLink, SIGNED_IN_TEXT(ALICE)));
    assert.equal(byLink.posts, 1);
    const fits = await byLink.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(fits, 'no horizontal scrolling on a narrow screen');
  });

  await clause('Interface 19.6, 19.3: (d) a used link shows that it cannot be used, and offers a new mail', async () => {
    const used = await open();
    await used.goto(link);
    await used.locator('#link-submit').click();
    log('used link:', await waitForStatus(used, LINK_UNUSABLE_TEXT));
    assert.equal(await used.locator('h1').textContent(), 'This link cannot be used');
    assert.equal(await used.locator('#link-form').isVisible(), false);
    assert.equal(await used.locator('#again').isVisible(), true);
    await shot(used, 'email-signin-page-used-link.png');
    await used.locator('#again').click();
    await used.locator('#email').waitFor({ state: 'visible' });
    assert.equal(used.posts, 1);
  });

  await clause('Interface 19.6, 19.4: (c) an account with TOTP is asked for its code on the page; a wrong one is refused, the mail stays usable', async () => {
    const { secret, step } = await enrolTotp(base, BOB);
    assert.equal(await postJson(base, 'signin/email', { email: BOB }), 200);
    const mail = await signinMail(mailDir, base, BOB);
    const second = await open();
    await second.goto(mail.link);
    await second.locator('#link-submit').click();
    await second.locator('#second-factor-code').waitFor({ state: 'visible' });
    assert.match(await second.locator('#second-factor-intro').textContent(), /authenticator app/);
    assert.equal(await second.evaluate(() => document.activeElement.id), 'second-factor-code');
    await shot(second, 'email-signin-page-second-factor.png');
    // A code of no step around now (12.3.3), then the next step's (the
    // confirmation used this one's: 12.3.4).
    const near = new Set([-1, 0, 1, 2].map((d) => totp(secret, step + d)));
    let wrong = '000000';
    while (near.has(wrong)) wrong = String(Number(wrong) + 1).padStart(6, '0');
    await second.locator('#second-factor-code').fill(wrong);
    await second.locator('#second-factor-submit').click();
    log('wrong TOTP code:', await waitForStatus(second, SECOND_FACTOR_REFUSED_TEXT));
    assert.equal(await second.locator('#second-factor-form').isVisible(), true);
    await second.locator('#second-factor-code').fill(codeAfter(secret, step));
    await second.locator('#second-factor-submit').click();
    log('TOTP code:', await waitForStatus(second, SIGNED_IN_TEXT(BOB)));
    assert.equal(second.posts, 3);
  });

  await clause('Interface 19.6, 19.5: (e) an unknown address gets the sign-up link; the page posts the address and password to ../signup', async () => {
    assert.equal(await postJson(base, 'signin/email', { email: CAROL }), 200);
    const signupLink = `${base}/signin/email#signup`;
    const { raw } = await mailTo(mailDir, CAROL, new RegExp(`${escaped(signupLink)}(?![A-Za-z0-9_=&-])`));
    assert.doesNotMatch(raw, /#token=/, 'no token for an address without an account');
    const signup = await openPage(context, 'signup');
    pages.push(signup);
    await signup.goto(signupLink);
    await signup.locator('#signup-email').waitFor({ state: 'visible' });
    assert.equal(await signup.locator('h1').textContent(), 'Create your account');
    await signup.locator('#signup-email').fill(CAROL);
    await signup.locator('#signup-password').fill(PASSWORD);
    await signup.locator('#signup-submit').click();
    log('sign-up:', await waitForStatus(signup, SIGNED_UP_TEXT));
    assert.equal(signup.posts, 1);
    await mailTo(mailDir, CAROL, new RegExp(`${escaped(base)}/verify#token=[A-Za-z0-9_-]+`));
    await shot(signup, 'email-signin-page-signed-up.png');
  });

  await clause('Interface 19.6: 403, 429, 503, 500 and no network each have their message; the button sends again', async () => {
    const stubbed = await open();
    const answers = [
      { reply: { status: 429, headers: { 'Retry-After': '30' } }, text: /too many attempts.*30 seconds/i },
      { reply: { status: 503, headers: { 'Retry-After': '5' } }, text: /busy or briefly unavailable.*5 seconds/i },
      { reply: { status: 500 }, text: /went wrong on our side/i },
      { reply: 'network', text: /could not reach the server/i },
      { reply: { status: 403 }, text: DISABLED_TEXT }
    ];
    let next = 0;
    await stubbed.route('**/signin/email/verify', (route) => {
      assert.deepEqual(JSON.parse(route.request().postData()), { token: 'authdsi_stubbed' });
      const answer = answers[Math.min(next++, answers.length - 1)];
      if (answer.reply === 'network') return route.abort('connectionrefused');
      return route.fulfill({
        status: answer.reply.status,
        headers: answer.reply.headers ?? {},
        contentType: 'application/json',
        body: JSON.stringify({ code: answer.reply.status, message: 'played by the browser' })
      });
    });
    await stubbed.goto(`${base}/signin/email#token=authdsi_stubbed`);
    for (const [i, answer] of answers.entries()) {
      await stubbed.locator('#link-submit').click();
      log(`${answer.reply.status ?? answer.reply}:`, await waitForStatus(stubbed, answer.text));
      const last = i === answers.length - 1;
      assert.equal(await stubbed.locator('#link-form').isVisible(), !last);
      if (i === 0) await shot(stubbed, 'email-signin-page-retry.png');
    }
    assert.equal(stubbed.posts, answers.length);
  });

  await clause('Interface 19.6, 16.8: the passkeys page links to this page when it is served, and not on a 404', async () => {
    const passkeys = await open();
    await passkeys.goto(`${base}/passkeys`);
    const linkToPage = passkeys.locator('#email-signin-link');
    await linkToPage.waitFor({ state: 'visible' });
    assert.equal(await linkToPage.textContent(), 'E-mail me a link or a code');
    await linkToPage.click();
    await passkeys.locator('#email').waitFor({ state: 'visible' });
    assert.equal(passkeys.url(), `${base}/signin/email`);
    const closed = await open();
    await closed.route('**/signin/email', (route) => route.fulfill({
      status: 404, contentType: 'application/json', body: JSON.stringify({ code: 404, message: 'Not Found' })
    }));
    const probed = closed.waitForRequest((request) => request.url().endsWith('/signin/email'));
    await closed.goto(`${base}/passkeys`);
    await closed.locator('#password-form').waitFor({ state: 'visible' });
    await probed;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await closed.locator('#email-signin').isVisible(), false);
  });

  await clause('Interface 19.6: no CSP or Trusted Types violation, nothing stored by the page', async () => {
    for (const p of pages) assert.deepEqual(p.cspViolations, [], p.url());
    const stored = await page.evaluate(() => ({ local: window.localStorage.length, session: window.sessionStorage.length }));
    assert.deepEqual(stored, { local: 0, session: 0 });
  });

  assert.equal(authd.exited, false, `authd exited:\n${logOf(authd)}`);
  log('ok');
}

await runTest('email_signin_page', main);
