// The page of sign-in by mail (interface.md 19.6), at /signin/email. What it
// shows depends on the fragment, which never reaches a server or a Referer
// header:
// - none: a form for the address (POST email, 19.1), then one for the
//   8-digit code of the mail (POST email/verify {email, code}, 19.3);
// - "#token=...", the link of the mail (19.2): the token is read and removed
//   from the address bar and the history entry; opening the link sends
//   nothing (a mail scanner that opens links must not use it up): a button
//   sends POST email/verify {token};
// - "#signup", the link of the mail to an address without an account
//   (19.5): an address and a password, posted to ../signup (11.4).
// An account with a second factor answers 401 with Authd-Second-Factor
// (19.4): the page asks for the authenticator's code or a recovery code and
// sends the same proof again with "otp" or "recoveryCode"; the mail is not
// used up by that 401.
//
// Requests go to relative URLs (a configured path prefix works). The
// verification is sent with the page's own cookies (credentials:
// 'same-origin') so that, with --session-cookie (13.5), the browser keeps
// the session cookie of its 200; the token of the Authorization header is
// not kept: the page has nowhere safe to keep it. The DOM is changed with
// textContent only: the page runs under require-trusted-types-for 'script'.
'use strict';

(function () {
  const page = window.AuthdPage;  // common.js, loaded first
  const MIN_PASSWORD = 8;  // interface.md 3.3, in Unicode code points
  const MAX_PASSWORD = 255;

  const MESSAGES = {
    requestIntro:
      'Enter the e-mail address of your account. We will send you a link and a code: ' +
      'either signs you in, once, within 15 minutes.',
    emptyEmail: 'Enter your e-mail address.',
    badEmail: 'This is not a valid e-mail address. Please check it.',
    requesting: 'Sending the e-mail\u2026',
    sent: ' If this address has an account, a mail with a link and an 8-digit code is on its ' +
      'way. Type the code here, or open the link on this device. It can take a minute; check ' +
      'your spam folder too.',
    emptyCode: 'Enter the 8-digit code from the e-mail.',
    badCode: 'The code has 8 digits. Type it as it is in the e-mail.',
    codeRefused:
      'This code was not accepted. Check it and type it again. If the mail is more than 15 ' +
      'minutes old, was used already, or the code was mistyped 5 times, ask for a new mail.',
    linkIntro: 'Press the button to sign in with the link from your e-mail.',
    missingToken:
      'This address does not contain a sign-in code. Open the link from your e-mail again ' +
      '(the whole link), or ask for a new mail below.',
    signingIn: 'Signing you in\u2026',
    linkUnusable:
      'This sign-in link cannot be used: it has been used already, it has expired (after 15 ' +
      'minutes), or a newer mail replaced it. Ask for a new mail.',
    codeUnusable:
      'This code can no longer be used: it has been used already, it has expired (after 15 ' +
      'minutes), or a newer mail replaced it. Ask for a new mail.',
    badLink:
      'This sign-in link is not complete or not valid. Open the link from your newest e-mail ' +
      'again (the whole link), or ask for a new mail.',
    disabled: 'This account is disabled. Contact your administrator.',
    secondFactorTotp:
      'Your account is protected by a second factor. Enter the code from your authenticator ' +
      'app, or one of your recovery codes.',
    secondFactorRecovery:
      'Your account is protected by a passkey, which this page cannot use. Enter one of your ' +
      'recovery codes.',
    secondFactorHintTotp: 'Six digits from your authenticator app, or a recovery code.',
    secondFactorHintRecovery: 'One of the recovery codes you saved when you set up your second factor.',
    emptySecondFactor: 'Enter the code.',
    secondFactorRefused: 'That code was not accepted. Check it and try again, or use a recovery code.',
    signedInAs: 'Signed in as',
    signedIn: 'You are signed in.',
    signupIntro:
      'This address has no account yet. To create one, enter the address and choose a ' +
      'password; we will then send a mail to confirm the address.',
    emptyPassword: 'Choose a password.',
    tooShort: 'This password is too short: use at least ' + MIN_PASSWORD + ' characters.',
    tooLong: 'This password is too long: use at most ' + MAX_PASSWORD + ' characters.',
    notText: 'This password contains characters that cannot be used. Please type it again.',
    sameAsEmail: 'The password must not be your e-mail address. Choose another one.',
    signingUp: 'Creating your account\u2026',
    signedUp:
      'Check your mail: if this address has no account yet, a mail with a link to confirm it is ' +
      'on its way. Open the link and type the password you chose to create your account.',
    signupClosed: 'Sign-up is not open on this server.',
    notServed: 'Sign-in by e-mail is not available on this server.',
    badRequest: 'The request was not accepted. Please check what you entered and try again.',
    tooMany: 'Too many attempts. Please wait',
    unavailable: 'The service is busy or briefly unavailable. Please try again in',
    network: 'Could not reach the server. Check your connection, then try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const $ = (id) => document.getElementById(id);
  const heading = $('heading');
  const intro = $('intro');
  const requestForm = $('request-form');
  const email = $('email');
  const codeForm = $('code-form');
  const codeIntro = $('code-intro');
  const code = $('code');
  const restart = $('restart');
  const linkForm = $('link-form');
  const secondForm = $('second-factor-form');
  const secondIntro = $('second-factor-intro');
  const secondCode = $('second-factor-code');
  const secondHint = $('second-factor-hint');
  const secondCancel = $('second-factor-cancel');
  const signupForm = $('signup-form');
  const signupEmail = $('signup-email');
  const signupPassword = $('signup-password');
  const show = $('show');
  const again = $('again');
  const forms = [requestForm, codeForm, linkForm, secondForm, signupForm];

  // What the verification proves: { token } or { email, code }, kept while
  // a second factor is asked; and the factors that the last 401 named.
  let proof = null;
  let factors = [];
  // The form that the second factor's "Cancel" goes back to.
  let proofForm = null;
  let busy = false;

  // -------------------------------------------------------------------------
  // Messages and the page's state.

  const say = page.say;
  const clearStatus = page.clearStatus;
  const markInvalid = page.markInvalid;

  // A field the page will not send: the message, and the field marked.
  function refuse(field, text) {
    say('error', text, true);
    markInvalid(field, true);
  }

  function setBusy(on) {
    busy = on;
    page.markBusy(on);
  }

  function setHeading(title) {
    heading.textContent = title;
    document.title = title;
  }

  function setIntro(text) {
    intro.textContent = text;
    intro.hidden = text === '';
  }

  // Shows `form` alone (or no form), under `title` and `text`.
  function showOnly(form, title, text) {
    for (const f of forms) f.hidden = f !== form;
    again.hidden = true;
    setHeading(title);
    setIntro(text);
  }

  // The end of a story that cannot go on: no form, the status says why and
  // takes the focus; "Ask for a new mail" when a mail can help.
  function finish(title, kind, text, offerNewMail) {
    showOnly(null, title, '');
    for (const field of [code, secondCode, signupPassword]) field.value = '';
    proof = null;
    say(kind, text, true);
    again.hidden = !offerNewMail;
  }

  // The passing failures every request shares: the form stays and may send
  // again.
  function passingFailure(response) {
    return page.passingFailure(response, MESSAGES);
  }

  // -------------------------------------------------------------------------
  // HTTP.

  // POST `route` (relative to this page) with `body` as JSON: the response
  // with its JSON body (null when there is none), or null when the server
  // could not be reached.
  function post(route, body, credentials) {
    return page.send('POST', route, body, credentials);
  }

  const secondFactors = page.secondFactors;

  // -------------------------------------------------------------------------
  // Asking for a mail (interface.md 19.1).

  function showRequest() {
    showOnly(requestForm, 'Sign in by e-mail', MESSAGES.requestIntro);
    email.focus();
  }

  async function requestMail() {
    markInvalid(email, false);
    const address = email.value.trim();
    if (address === '') {
      refuse(email, MESSAGES.emptyEmail);
      return;
    }
    setBusy(true);
    let response;
    try {
      say('info', MESSAGES.requesting);
      response = await post('email', { email: address }, 'omit');
    } finally {
      setBusy(false);
    }
    if (!response) {
      say('error', MESSAGES.network, true);
      return;
    }
    switch (response.status) {
      case 200: {
        // The same answer whether or not the address has an account.
        const canonical = response.body && typeof response.body.email === 'string'
          ? response.body.email : address;
        showCode(canonical);
        break;
      }
      case 400:
        refuse(email, MESSAGES.badEmail);
        break;
      case 404:
        finish('Sign in by e-mail', 'error', MESSAGES.notServed, false);
        break;
      default:
        say('error', passingFailure(response), true);
    }
  }

  // -------------------------------------------------------------------------
  // The code of the mail (interface.md 19.3).

  function showCode(address) {
    proof = null;
    code.value = '';
    markInvalid(code, false);
    showOnly(codeForm, 'Check your mail', '');
    codeIntro.textContent = 'We have received your request for ' + address + '.' + MESSAGES.sent;
    codeForm.dataset.email = address;
    clearStatus();
    code.focus();
  }

  async function sendCode() {
    markInvalid(code, false);
    // Spaces and dashes, as a mail reader may copy them, are not digits.
    const typed = code.value.replace(/[\s-]/g, '');
    if (typed === '') {
      refuse(code, MESSAGES.emptyCode);
      return;
    }
    if (!/^[0-9]{8}$/.test(typed)) {
      refuse(code, MESSAGES.badCode);
      return;
    }
    proof = { email: codeForm.dataset.email, code: typed };
    proofForm = codeForm;
    await verify(null);
  }

  // -------------------------------------------------------------------------
  // The link of the mail (interface.md 19.2, 19.3).

  function showLink(token) {
    proof = { token: token };
    proofForm = linkForm;
    showOnly(linkForm, 'Sign in', MESSAGES.linkIntro);
    clearStatus();
    $('link-submit').focus();
  }

  // -------------------------------------------------------------------------
  // The verification, and the second factor (interface.md 19.3, 19.4).

  // POST email/verify with the proof and `extra` (otp or recoveryCode).
  async function verify(extra) {
    const sent = proof;
    setBusy(true);
    let response;
    try {
      say('info', MESSAGES.signingIn);
      response = await post('email/verify', Object.assign({}, sent, extra), 'same-origin');
    } finally {
      setBusy(false);
    }
    if (!response) {
      say('error', MESSAGES.network, true);
      return;
    }
    const named = secondFactors(response);
    if (response.status === 200) {
      signedIn(response.body, sent);
    } else if (response.status === 401 && named.length > 0) {
      // The proof is right; the account's factor is missing or wrong. The
      // mail stays usable.
      factors = named;
      if (extra) {
        secondCode.value = '';
        refuse(secondCode, MESSAGES.secondFactorRefused);
      } else {
        showSecondFactor();
      }
    } else if (response.status === 401) {
      if (sent.code !== undefined && !extra) {
        // Perhaps a typo: up to 5 wrong codes, the mail stays usable.
        refuse(code, MESSAGES.codeRefused);
      } else if (sent.code !== undefined) {
        finish('This code cannot be used', 'error', MESSAGES.codeUnusable, true);
      } else {
        finish('This link cannot be used', 'error', MESSAGES.linkUnusable, true);
      }
    } else if (response.status === 403) {
      finish('Account disabled', 'error', MESSAGES.disabled, false);
    } else if (response.status === 400 && sent.token !== undefined) {
      finish('This link cannot be used', 'error', MESSAGES.badLink, true);
    } else if (response.status === 400) {
      say('error', MESSAGES.badRequest, true);
    } else if (response.status === 404) {
      finish('Sign in by e-mail', 'error', MESSAGES.notServed, false);
    } else {
      say('error', passingFailure(response), true);
    }
  }

  function showSecondFactor() {
    const totp = factors.includes('totp');
    showOnly(secondForm, 'Confirm it is you', '');
    secondIntro.textContent = totp ? MESSAGES.secondFactorTotp : MESSAGES.secondFactorRecovery;
    secondHint.textContent = totp ? MESSAGES.secondFactorHintTotp : MESSAGES.secondFactorHintRecovery;
    $('second-factor-label').textContent = totp ? 'Code or recovery code' : 'Recovery code';
    secondCode.setAttribute('inputmode', totp ? 'numeric' : 'text');
    secondCode.value = '';
    markInvalid(secondCode, false);
    clearStatus();
    secondCode.focus();
  }

  // Six digits are a TOTP code (12.3.3) when the account has one; anything
  // else a recovery code (common.js).
  async function sendSecondFactor() {
    markInvalid(secondCode, false);
    const typed = secondCode.value.trim();
    if (typed === '') {
      refuse(secondCode, MESSAGES.emptySecondFactor);
      return;
    }
    await verify(page.codeMember(typed, factors));
  }

  function signedIn(user, sent) {
    const address = user && typeof user.email === 'string' ? user.email : (sent.email || '');
    finish('You are signed in', 'success',
      address ? MESSAGES.signedInAs + ' ' + address + '.' : MESSAGES.signedIn, false);
  }

  // -------------------------------------------------------------------------
  // Sign-up for an address without an account (interface.md 19.5, 11.4).

  function showSignup() {
    showOnly(signupForm, 'Create your account', MESSAGES.signupIntro);
    clearStatus();
    signupEmail.focus();
  }

  // The client-side mirror of the server's rules (3.3): the message and
  // the field, or null when the form may be sent.
  function signupProblem() {
    const address = signupEmail.value.trim();
    const value = signupPassword.value;
    if (address === '') return { text: MESSAGES.emptyEmail, field: signupEmail };
    if (value === '') return { text: MESSAGES.emptyPassword, field: signupPassword };
    if (/\p{Surrogate}/u.test(value)) return { text: MESSAGES.notText, field: signupPassword };
    const length = Array.from(value).length;
    if (length < MIN_PASSWORD) return { text: MESSAGES.tooShort, field: signupPassword };
    if (length > MAX_PASSWORD) return { text: MESSAGES.tooLong, field: signupPassword };
    if (value.toLowerCase() === address.toLowerCase()) {
      return { text: MESSAGES.sameAsEmail, field: signupPassword };
    }
    return null;
  }

  // A 400's "detail" (src/api/signup.cpp): "email: ..." or "password: ...".
  function signupBadRequest(detail) {
    const d = typeof detail === 'string' ? detail.toLowerCase() : '';
    if (d.startsWith('email')) return { text: MESSAGES.badEmail, field: signupEmail };
    if (d.startsWith('password')) {
      let text = MESSAGES.badRequest;
      if (d.includes('at least') || d.includes('empty')) text = MESSAGES.tooShort;
      else if (d.includes('at most')) text = MESSAGES.tooLong;
      else if (d.includes('e-mail') || d.includes('email')) text = MESSAGES.sameAsEmail;
      else if (d.includes('utf-8')) text = MESSAGES.notText;
      return { text: text, field: signupPassword };
    }
    return { text: MESSAGES.badRequest, field: signupEmail };
  }

  async function signUp() {
    markInvalid(signupEmail, false);
    markInvalid(signupPassword, false);
    const problem = signupProblem();
    if (problem) {
      refuse(problem.field, problem.text);
      return;
    }
    setBusy(true);
    let response;
    try {
      say('info', MESSAGES.signingUp);
      response = await post('../signup',
        { email: signupEmail.value.trim(), password: signupPassword.value }, 'omit');
    } finally {
      setBusy(false);
    }
    if (!response) {
      say('error', MESSAGES.network, true);
      return;
    }
    switch (response.status) {
      case 200:
        finish('Check your mail', 'success', MESSAGES.signedUp, false);
        break;
      case 400: {
        const bad = signupBadRequest(response.body && response.body.detail);
        refuse(bad.field, bad.text);
        break;
      }
      case 404:
        finish('Sign-up closed', 'error', MESSAGES.signupClosed, false);
        break;
      default:
        say('error', passingFailure(response), true);
    }
  }

  // -------------------------------------------------------------------------

  // The mode of the fragment. A token is taken, then the fragment is
  // dropped so that it neither lingers in the address bar nor in the
  // history entry; "#signup" may stay.
  function route() {
    const fragment = window.location.hash.replace(/^#/, '');
    if (fragment === 'signup') {
      showSignup();
      return;
    }
    let params = null;
    try {
      params = new URLSearchParams(fragment);
    } catch (e) {
      params = null;
    }
    if (fragment !== '' || window.location.href.endsWith('#')) {
      window.history.replaceState(null, '', window.location.pathname + window.location.search);
    }
    if (params && params.has('token')) {
      const token = params.get('token') || '';
      if (token !== '') {
        showLink(token);
      } else {
        finish('Sign-in link incomplete', 'error', MESSAGES.missingToken, true);
      }
      return;
    }
    clearStatus();
    showRequest();
  }

  function onSubmit(form, action) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!busy) action();
    });
  }

  function start() {
    onSubmit(requestForm, requestMail);
    onSubmit(codeForm, sendCode);
    onSubmit(linkForm, function () {
      return verify(null);
    });
    onSubmit(secondForm, sendSecondFactor);
    onSubmit(signupForm, signUp);
    restart.addEventListener('click', function () {
      if (busy) return;
      clearStatus();
      showRequest();
    });
    secondCancel.addEventListener('click', function () {
      if (busy) return;
      clearStatus();
      if (proofForm === codeForm) {
        showOnly(codeForm, 'Check your mail', '');
        code.focus();
      } else {
        showLink(proof.token);
      }
    });
    again.addEventListener('click', function () {
      clearStatus();
      showRequest();
    });
    show.addEventListener('change', function () {
      signupPassword.type = show.checked ? 'text' : 'password';
    });
    for (const input of [email, code, secondCode, signupEmail, signupPassword]) {
      input.addEventListener('input', function () {
        markInvalid(input, false);
      });
    }
    // A link pasted into the tab that shows this page changes the fragment
    // only: no new page load.
    window.addEventListener('hashchange', function () {
      if (!busy) route();
    });
    route();
  }

  start();
})();
