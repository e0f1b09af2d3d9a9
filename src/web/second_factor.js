// The second factor of an upstream sign-in (interface.md 18.2.5), at
// /signin/upstream/second-factor: the upstream proved the first factor;
// the page sends the account's second factor with POST second-factor
// (relative to itself), as the sign-in page sends it to /login (signin.js):
// a typed code as `otp` (six digits, when the account has a TOTP factor)
// or `recoveryCode`, or a passkey's assertion as `webauthn` (16.4). The
// 200 names where to go on (`location`); a 401 asks again; a 400 means
// the sign-in is over (expired, used, or too many wrong tries) and must
// start again at the application. The DOM is changed with textContent only.
'use strict';

(function () {
  const page = window.AuthdPage;  // common.js, loaded first
  const MESSAGES = {
    signingIn: 'Signing you in\u2026',
    signedIn: 'You are signed in. Continuing\u2026',
    refused: 'That code was not accepted. Check it and try again, or use a recovery code.',
    emptyCode: 'Enter the code.',
    over:
      'This sign-in has expired or was already used. Go back to your application and sign in ' +
      'again.',
    disabled: 'This account is disabled. Contact your administrator.',
    unsupported: 'This browser cannot use passkeys here. Enter a recovery code instead.',
    confirmingWithPasskey: 'Follow the instructions of your browser or device to use your passkey\u2026',
    insecure: 'Passkeys need a secure connection (https). Enter a recovery code instead.',
    askingDevice: 'Follow the instructions of your browser or device to use your passkey\u2026',
    cancelled: 'The passkey request was cancelled or timed out. You can try again.',
    securityError:
      'Your browser refused to use passkeys for this address. Ask your administrator to check ' +
      'the server\u2019s passkey settings.',
    deviceError: 'Your device could not use the passkey. Please try again.',
    tooMany: 'Too many attempts. Please wait',
    unavailable: 'The service is busy or briefly unavailable. Please try again in',
    network: 'Could not reach the server. Check your connection, then try again.',
    badRequest: 'The request was not accepted. Please check what you entered and try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const $ = (id) => document.getElementById(id);
  const form = $('second-factor');
  const code = $('code');
  const passkey = $('second-factor-passkey');  // only when the account has one
  const factors = (document.querySelector('main').getAttribute('data-factors') || '')
    .split(/\s+/).filter((f) => f !== '');
  let busy = false;

  function setBusy(on) {
    busy = on;
    page.markBusy(on);
  }

  // The factor in `body` to the server: signed in, or what to do next.
  async function send(body) {
    page.say('info', MESSAGES.signingIn);
    const response = await page.send('POST', 'second-factor', body, 'same-origin');
    if (!response) {
      page.say('error', MESSAGES.network, true);
    } else if (response.status === 200 && response.body && typeof response.body.location === 'string') {
      page.say('success', MESSAGES.signedIn);
      window.location.assign(new URL(response.body.location, window.location.href).href);
    } else if (response.status === 401) {
      code.value = '';
      page.say('error', MESSAGES.refused, true);
      page.markInvalid(code, body.webauthn === undefined);
    } else if (response.status === 400 && !(response.body && /^(otp|recoverycode|webauthn)/i.test(
      String(response.body.detail || '')))) {
      form.hidden = true;
      page.say('error', MESSAGES.over, true);
    } else {
      page.say('error', page.statusMessage(response, { 403: MESSAGES.disabled }, MESSAGES), true);
    }
  }

  async function sendCode() {
    const typed = code.value.replace(/\s/g, '');
    if (typed === '') {
      page.say('error', MESSAGES.emptyCode, true);
      page.markInvalid(code, true);
      return;
    }
    page.markInvalid(code, false);
    setBusy(true);
    try {
      await send(page.codeMember(typed, factors));
    } finally {
      setBusy(false);
    }
  }

  async function usePasskey() {
    setBusy(true);
    try {
      const made = await page.assertion(MESSAGES, 'same-origin', true, '../../');
      if (made.message) {
        page.say('error', made.message, true);
        return;
      }
      await send({ webauthn: made.json });
    } finally {
      setBusy(false);
    }
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (!busy) sendCode();
  });
  if (passkey) {
    passkey.addEventListener('click', function (event) {
      event.preventDefault();
      if (!busy) usePasskey();
    });
  }
  code.addEventListener('input', function () {
    page.markInvalid(code, false);
  });
  code.focus();
})();
