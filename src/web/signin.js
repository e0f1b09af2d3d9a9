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
  const status = $('status');
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

  function say(kind, text, focus) {
    status.className = 'status ' + kind;
    status.textContent = text;
    if (focus) {
      status.setAttribute('tabindex', '-1');
      status.focus();
    }
  }

  function clearStatus() {
    status.className = 'status';
    status.textContent = '';
  }

  function markInvalid(field, invalid) {
    if (invalid) {
      field.setAttribute('aria-invalid', 'true');
      field.setAttribute('aria-errormessage', 'status');
      field.focus();
    } else {
      field.removeAttribute('aria-invalid');
      field.removeAttribute('aria-errormessage');
    }
  }

  function setBusy(on) {
    busy = on;
    for (const button of document.querySelectorAll('button')) button.disabled = on;
    document.querySelector('main').setAttribute('aria-busy', on ? 'true' : 'false');
  }

  // Shows one part of the page: 'signin', 'second-factor' or 'forgot'.
  function show(part) {
    heading.textContent = part === 'forgot' ? 'Forgot your password?' : 'Sign in';
    section.hidden = part !== 'signin';
    secondForm.hidden = part !== 'second-factor';
    forgotForm.hidden = part !== 'forgot';
  }

  // "Retry-After: 90" in words: how long to wait, or `fallback`.
  function waitText(response, fallback) {
    const header = response.headers ? response.headers.get('Retry-After') : null;
    const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : NaN;
    if (!Number.isFinite(seconds)) return fallback;
    if (seconds <= 1) return 'a moment';
    if (seconds < 90) return seconds + ' seconds';
    return 'about ' + Math.ceil(seconds / 60) + ' minutes';
  }

  // The message of the statuses every route shares; `known` gives the
  // statuses that the caller words itself.
  function statusMessage(response, known) {
    if (known && Object.prototype.hasOwnProperty.call(known, response.status)) {
      return known[response.status];
    }
    switch (response.status) {
      case 400: return MESSAGES.badRequest;
      case 429: return MESSAGES.tooMany + ' ' + waitText(response, 'a few minutes') + ', then try again.';
      case 503: return MESSAGES.unavailable + ' ' + waitText(response, 'a moment') + '.';
      default: return MESSAGES.serverError + ' (HTTP ' + response.status + ')';
    }
  }

  // -------------------------------------------------------------------------
  // HTTP: relative URLs, the page's own cookies.

  // POST `route` with `body` as JSON: the response with its JSON body (null
  // when there is none), or null when the server could not be reached.
  async function post(route, body) {
    let response;
    try {
      response = await fetch(route, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer'
      });
    } catch (e) {
      return null;
    }
    let json = null;
    try {
      const text = await response.text();
      json = text === '' ? null : JSON.parse(text);
    } catch (e) {
      json = null;
    }
    return { status: response.status, headers: response.headers, body: json };
  }

  // The factors an Authd-Second-Factor header names ("totp", "webauthn"),
  // in lower case; [] without the header.
  function secondFactors(response) {
    const header = response.headers ? response.headers.get('Authd-Second-Factor') : null;
    return (header || '').split(',').map((f) => f.trim().toLowerCase()).filter((f) => f !== '');
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
  // Passkeys (interface.md 16.3): the server's options (base64url in JSON)
  // in, the credential's JSON out, with the browser's own converters when
  // it has them.

  function fromBase64url(text) {
    const base64 = String(text).replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64 + '==='.slice((base64.length + 3) % 4);
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function toBase64url(buffer) {
    const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    let binary = '';
    for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function requestOptions(json) {
    if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function') {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    const options = Object.assign({}, json);
    options.challenge = fromBase64url(json.challenge);
    options.allowCredentials = (Array.isArray(json.allowCredentials) ? json.allowCredentials : [])
      .map(function (d) {
        const out = { type: d.type, id: fromBase64url(d.id) };
        if (Array.isArray(d.transports)) out.transports = d.transports;
        return out;
      });
    return options;
  }

  function credentialJson(credential) {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    const r = credential.response;
    const response = {
      clientDataJSON: toBase64url(r.clientDataJSON),
      authenticatorData: toBase64url(r.authenticatorData),
      signature: toBase64url(r.signature)
    };
    if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
    const json = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      response: response,
      clientExtensionResults: credential.getClientExtensionResults
        ? credential.getClientExtensionResults() : {}
    };
    if (credential.authenticatorAttachment) {
      json.authenticatorAttachment = credential.authenticatorAttachment;
    }
    return json;
  }

  function passkeysSupported() {
    return typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
  }

  function deviceMessage(error) {
    const name = error && error.name;
    if (name === 'NotAllowedError' || name === 'AbortError') return MESSAGES.cancelled;
    if (name === 'SecurityError') return MESSAGES.securityError;
    if (name === 'NotSupportedError') return MESSAGES.unsupported;
    return MESSAGES.deviceError;
  }

  // A challenge from the server, then an assertion from the device:
  // { json } or { message } (the refusal, in words).
  async function assertion() {
    if (!passkeysSupported()) {
      return { message: window.isSecureContext ? MESSAGES.unsupported : MESSAGES.insecure };
    }
    const options = await post('webauthn/login/options', {});
    if (!options) return { message: MESSAGES.network };
    if (options.status !== 200 || !options.body || typeof options.body.publicKey !== 'object' ||
        options.body.publicKey === null) {
      return { message: statusMessage(options, {}) };
    }
    say('info', MESSAGES.askingDevice);
    let credential;
    try {
      credential = await navigator.credentials.get({ publicKey: requestOptions(options.body.publicKey) });
    } catch (error) {
      return { message: deviceMessage(error) };
    }
    if (!credential) return { message: MESSAGES.cancelled };
    return { json: credentialJson(credential) };
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
    const factors = secondFactors(response);
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

  // Six digits are a TOTP code (12.3.3) when the account has one; anything
  // else a recovery code.
  function codeMember(typed, factors) {
    return /^\d{6}$/.test(typed) && factors && factors.includes('totp')
      ? { otp: typed } : { recoveryCode: typed };
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
      await passwordLogin(codeMember(typed, pending.factors));
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
