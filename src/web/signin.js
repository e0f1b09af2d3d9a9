// The OpenID provider's sign-in page (interface.md 17.5), at
// /signin?request=ID[&login_hint=...]. A waiting authorization request
// sends the browser here; the page signs in with the JSON routes of the
// same origin, which set the session cookie (13.5):
// - POST login (6 /login) with the e-mail and the password; an account
//   with a second factor answers 401 with Authd-Second-Factor (12.3): the
//   page then asks the device for a passkey at once when "webauthn" is
//   named, or shows the code field (a TOTP code or a recovery code), and
//   sends the same login again with `webauthn`, `otp` or `recoveryCode`;
// - POST webauthn/login/options then POST webauthn/login (16.3): a passkey,
//   no e-mail typed.
// Then it navigates to oauth2/authorize/resume?request=ID, relative to
// itself, so that a --base-path prefix works. `login_hint` prefills the
// e-mail field (as its value, never as markup). A forgotten password is
// asked for with POST forgot, whose answer says the same whether or not
// the address has an account; so does every message here.
//
// The token of the Authorization header is not kept: the cookie is the
// session. Requests go with the page's own cookies (credentials:
// 'same-origin') so that the browser keeps the cookie of the 200. The DOM
// is changed with textContent only: the page runs under
// require-trusted-types-for 'script'.
'use strict';

(function () {
  const page = window.AuthdPage;  // common.js, loaded first
  const MESSAGES = {
    noRequest:
      'This page is opened by an application that asks you to sign in. Go back to the ' +
      'application and try again.',
    emptyCredentials: 'Enter your e-mail address and your password.',
    badLogin: 'The e-mail address or the password is wrong. Please check them and try again.',
    badLoginRequest: 'Check the e-mail address and the password, then try again.',
    disabled: 'This account is disabled. Contact your administrator.',
    signingIn: 'Signing you in\u2026',
    signedIn: 'You are signed in. Returning to the application\u2026',
    secondFactorCode:
      'Your account is protected by a second factor. Enter the code from your authenticator ' +
      'app, or one of your recovery codes.',
    secondFactorPasskey:
      'Your account is protected by a passkey. Use it to finish signing in, or enter one of ' +
      'your recovery codes.',
    secondFactorBoth:
      'Your account is protected by a second factor. Use your passkey, or enter a code from ' +
      'your authenticator app or a recovery code.',
    secondFactorRefused: 'That code was not accepted. Check it and try again, or use a recovery code.',
    emptyCode: 'Enter the code.',
    unsupported: 'This browser cannot use passkeys here. Sign in with your e-mail address and password.',
    insecure: 'Passkeys need a secure connection (https). Sign in with your e-mail address and password.',
    askingDevice: 'Follow the instructions of your browser or device to use your passkey\u2026',
    cancelled: 'The passkey request was cancelled or timed out. You can try again.',
    securityError:
      'Your browser refused to use passkeys for this address. Ask your administrator to check ' +
      'the server\u2019s passkey settings.',
    deviceError: 'Your device could not use the passkey. Please try again.',
    passkeyRefused:
      'This passkey was not accepted. Try another passkey, or sign in with your e-mail address ' +
      'and password.',
    passkeyUnreadable: 'Your browser\u2019s answer could not be read. Please try again.',
    emptyEmail: 'Enter your e-mail address.',
    badEmail: 'This is not a valid e-mail address. Please check it.',
    sendingReset: 'Sending the e-mail\u2026',
    resetSent:
      'If this address has an account, a mail with a link to choose a new password is on its ' +
      'way. Open it, set the new password, then come back here to sign in.',
    tooMany: 'Too many attempts. Please wait',
    unavailable: 'The service is busy or briefly unavailable. Please try again in',
    network: 'Could not reach the server. Check your connection, then try again.',
    badRequest: 'The request was not accepted. Please check what you entered and try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const $ = (id) => document.getElementById(id);
  const heading = $('heading');
  const section = $('signin-section');
  const signinForm = $('signin');
  const email = $('email');
  const password = $('password');
  const passkey = $('passkey');
  const secondForm = $('second-factor');
  const secondIntro = $('second-factor-intro');
  const code = $('code');
  const codeLabel = $('code-label');
  const secondPasskey = $('second-factor-passkey');
  const secondCancel = $('second-factor-cancel');
  const forgot = $('forgot');
  const forgotForm = $('forgot-form');
  const forgotEmail = $('forgot-email');
  const forgotCancel = $('forgot-cancel');

  const query = new URLSearchParams(window.location.search);
  const requestId = query.get('request') || '';
  // A password login waiting for its second factor: what the second
  // request repeats, forgotten once it ends either way.
  let pending = null;
  let busy = false;

  // -------------------------------------------------------------------------
  // Messages and the page's state.

  const say = page.say;
  const clearStatus = page.clearStatus;
  const markInvalid = page.markInvalid;

  function setBusy(on) {
    busy = on;
    page.markBusy(on);
  }

  // Shows one part of the page: 'signin', 'second-factor' or 'forgot'.
  function show(part) {
    heading.textContent = part === 'forgot' ? 'Forgot your password?' : 'Sign in';
    section.hidden = part !== 'signin';
    secondForm.hidden = part !== 'second-factor';
    forgotForm.hidden = part !== 'forgot';
  }

  // The message of a failed response; `known` gives the statuses that the
  // caller words itself.
  function statusMessage(response, known) {
    return page.statusMessage(response, known, MESSAGES);
  }

  // -------------------------------------------------------------------------
  // HTTP: relative URLs, the page's own cookies.

  // POST `route` with `body` as JSON: the response with its JSON body (null
  // when there is none), or null when the server could not be reached.
  function post(route, body) {
    return page.send('POST', route, body, 'same-origin');
  }

  // Signed in: back to the authorization request, which now finds the
  // session. The URL is resolved against this page's own, under any prefix.
  function resume() {
    say('success', MESSAGES.signedIn);
    const target = new URL('oauth2/authorize/resume?request=' + encodeURIComponent(requestId),
      window.location.href);
    window.location.assign(target.href);
  }

  // -------------------------------------------------------------------------
  // Passkeys (interface.md 16.3): a challenge from the server, then an
  // assertion from the device: { json } or { message } (the refusal, in
  // words).
  function assertion() {
    return page.assertion(MESSAGES, 'same-origin', false);
  }

  async function signInWithPasskey() {
    clearStatus();
    setBusy(true);
    try {
      const made = await assertion();
      if (made.message) {
        say('error', made.message, true);
        return;
      }
      say('info', MESSAGES.signingIn);
      const response = await post('webauthn/login', { credential: made.json });
      if (!response) {
        say('error', MESSAGES.network, true);
      } else if (response.status === 200) {
        resume();
      } else {
        say('error', statusMessage(response, {
          400: MESSAGES.passkeyUnreadable, 401: MESSAGES.passkeyRefused, 403: MESSAGES.disabled
        }), true);
      }
    } finally {
      setBusy(false);
    }
  }

  // -------------------------------------------------------------------------
  // The password, and its second factor (interface.md 6 /login, 12.3).

  // POST login with the pending e-mail and password and `extra` (otp,
  // recoveryCode or webauthn): signed in, or what to do next.
  async function passwordLogin(extra) {
    const body = Object.assign({ email: pending.email, password: pending.password }, extra);
    say('info', MESSAGES.signingIn);
    const response = await post('login', body);
    if (!response) {
      say('error', MESSAGES.network, true);
      return;
    }
    if (response.status === 200) {
      pending = null;
      password.value = '';
      code.value = '';
      resume();
      return;
    }
    const factors = page.secondFactors(response);
    if (response.status === 401 && factors.length > 0) {
      const again = extra !== undefined;
      pending.factors = factors;
      if (!again && factors.includes('webauthn')) {
        // The account has a passkey: use it at once.
        const made = await assertion();
        if (made.json) {
          await passwordLogin({ webauthn: made.json });
          return;
        }
        showSecondFactor(factors);
        say('error', made.message, true);
        return;
      }
      showSecondFactor(factors);
      if (again) {
        code.value = '';
        say('error', MESSAGES.secondFactorRefused, true);
        markInvalid(code, extra.webauthn === undefined);
      } else {
        clearStatus();  // the form's introduction says what to do
        code.focus();
      }
      return;
    }
    if (response.status === 400 && pending.factors) {
      const detail = response.body && typeof response.body.detail === 'string' ? response.body.detail : '';
      if (/^(otp|recoverycode|webauthn)/i.test(detail)) {
        say('error', MESSAGES.secondFactorRefused, true);
        markInvalid(code, true);
        return;
      }
    }
    endSecondFactor();
    if (response.status === 401) {
      // The same words whether the address has an account or not.
      say('error', MESSAGES.badLogin, true);
      markInvalid(password, true);
      return;
    }
    say('error', statusMessage(response, { 400: MESSAGES.badLoginRequest, 403: MESSAGES.disabled }), true);
  }

  async function signInWithPassword() {
    markInvalid(email, false);
    markInvalid(password, false);
    if (email.value.trim() === '' || password.value === '') {
      say('error', MESSAGES.emptyCredentials, true);
      markInvalid(email.value.trim() === '' ? email : password, true);
      return;
    }
    pending = { email: email.value.trim(), password: password.value, factors: null };
    setBusy(true);
    try {
      await passwordLogin(undefined);
    } finally {
      setBusy(false);
    }
  }

  function showSecondFactor(factors) {
    const withPasskey = factors.includes('webauthn');
    const totp = factors.includes('totp');
    show('second-factor');
    secondPasskey.hidden = !withPasskey;
    if (withPasskey && totp) secondIntro.textContent = MESSAGES.secondFactorBoth;
    else if (withPasskey) secondIntro.textContent = MESSAGES.secondFactorPasskey;
    else secondIntro.textContent = MESSAGES.secondFactorCode;
    codeLabel.textContent = totp ? 'Code from your authenticator app, or a recovery code' : 'Recovery code';
    code.setAttribute('inputmode', totp ? 'numeric' : 'text');
  }

  function endSecondFactor() {
    pending = null;
    code.value = '';
    markInvalid(code, false);
    show('signin');
  }

  async function sendCode() {
    if (!pending) return;
    const typed = code.value.replace(/\s/g, '');
    if (typed === '') {
      say('error', MESSAGES.emptyCode, true);
      markInvalid(code, true);
      return;
    }
    markInvalid(code, false);
    setBusy(true);
    try {
      await passwordLogin(page.codeMember(typed, pending.factors));
    } finally {
      setBusy(false);
    }
  }

  async function secondFactorWithPasskey() {
    if (!pending) return;
    setBusy(true);
    try {
      const made = await assertion();
      if (made.message) {
        say('error', made.message, true);
        return;
      }
      await passwordLogin({ webauthn: made.json });
    } finally {
      setBusy(false);
    }
  }

  // -------------------------------------------------------------------------
  // A forgotten password (interface.md 6 /forgot): the same answer for
  // every valid address.

  async function askForReset() {
    markInvalid(forgotEmail, false);
    const address = forgotEmail.value.trim();
    if (address === '') {
      say('error', MESSAGES.emptyEmail, true);
      markInvalid(forgotEmail, true);
      return;
    }
    setBusy(true);
    let response;
    try {
      say('info', MESSAGES.sendingReset);
      response = await post('forgot', { email: address });
    } finally {
      setBusy(false);
    }
    if (!response) {
      say('error', MESSAGES.network, true);
    } else if (response.status === 200) {
      email.value = address;
      show('signin');
      say('success', MESSAGES.resetSent, true);
    } else if (response.status === 400) {
      say('error', MESSAGES.badEmail, true);
      markInvalid(forgotEmail, true);
    } else {
      say('error', statusMessage(response, {}), true);
    }
  }

  // -------------------------------------------------------------------------

  function onSubmit(form, action) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!busy) action();
    });
  }

  function onClick(element, action) {
    element.addEventListener('click', function (event) {
      event.preventDefault();
      if (!busy) action();
    });
  }

  function start() {
    if (requestId === '') {
      show(null);
      say('error', MESSAGES.noRequest, true);
      return;
    }
    onSubmit(signinForm, signInWithPassword);
    onSubmit(secondForm, sendCode);
    onSubmit(forgotForm, askForReset);
    onClick(passkey, signInWithPasskey);
    onClick(secondPasskey, secondFactorWithPasskey);
    onClick(secondCancel, function () {
      clearStatus();
      endSecondFactor();
      password.focus();
    });
    onClick(forgot, function () {
      clearStatus();
      forgotEmail.value = email.value.trim();
      show('forgot');
      forgotEmail.focus();
    });
    onClick(forgotCancel, function () {
      clearStatus();
      show('signin');
      email.focus();
    });
    for (const input of [email, password, code, forgotEmail]) {
      input.addEventListener('input', function () {
        markInvalid(input, false);
      });
    }
    // interface.md 17.4: login_hint, as the field's value (never markup).
    const hint = query.get('login_hint');
    if (hint) email.value = hint.slice(0, 320);
    show('signin');
    (email.value === '' ? email : password).focus();
  }

  start();
})();
