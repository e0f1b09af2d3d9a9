// The password-reset page (interface.md 7.3). The link in the mail is
// {public_url}/reset#token=...: the fragment never reaches a server or a
// Referer header. The script reads the token, removes it from the address
// bar and the history entry, and sends it with the new password to
// POST reset (relative to this page, so a configured path prefix works).
'use strict';

(function () {
  const MIN_LENGTH = 8;    // interface.md 3.3, in Unicode code points
  const MAX_LENGTH = 255;

  const MESSAGES = {
    missingToken:
      'This address does not contain a reset code. Open the link from your ' +
      'password-reset e-mail again (the whole link), or ask for a new e-mail.',
    empty: 'Enter a new password.',
    tooShort: 'This password is too short: use at least ' + MIN_LENGTH + ' characters.',
    tooLong: 'This password is too long: use at most ' + MAX_LENGTH + ' characters.',
    notText: 'This password contains characters that cannot be used. Please type it again.',
    sameAsEmail: 'The new password must not be your e-mail address. Choose another one.',
    mismatch: 'The two passwords do not match. Type the same password in both fields.',
    sending: 'Setting your new password\u2026',
    success:
      'Your password has been changed. You can now sign in with your new password. ' +
      'For your safety, you have been signed out everywhere else.',
    badLink:
      'This reset link cannot be used: it has already been used, it has expired, ' +
      'or it is not valid. Ask for a new password-reset e-mail and use the newest link.',
    tooMany: 'Too many attempts. Please wait a few minutes, then try again.',
    unavailable: 'The service is busy or briefly unavailable. Please try again in a moment.',
    network: 'Could not reach the server. Check your connection, then try again.',
    badRequest: 'The password could not be accepted. Please check it and try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const form = document.getElementById('reset-form');
  const password = document.getElementById('password');
  const confirmation = document.getElementById('confirmation');
  const show = document.getElementById('show');
  const submit = document.getElementById('submit');
  const status = document.getElementById('status');
  const intro = document.getElementById('intro');
  const heading = document.getElementById('heading');

  // The token from "#token=...", then the fragment is dropped so that it
  // neither lingers in the address bar nor in the history entry.
  function takeToken() {
    const fragment = window.location.hash.replace(/^#/, '');
    let token = '';
    try {
      token = new URLSearchParams(fragment).get('token') || '';
    } catch (e) {
      token = '';
    }
    if (fragment !== '' || window.location.href.endsWith('#')) {
      const clean = window.location.pathname + window.location.search;
      window.history.replaceState(null, '', clean);
    }
    return token;
  }

  function say(kind, text) {
    status.className = 'status ' + kind;
    status.textContent = text;
  }

  function codePoints(text) {
    return Array.from(text).length;
  }

  // The client-side mirror of the server's rules: the message and the
  // field it concerns, or null when the form may be sent.
  function localProblem() {
    const value = password.value;
    if (value === '') return { text: MESSAGES.empty, field: password };
    if (/\p{Surrogate}/u.test(value)) return { text: MESSAGES.notText, field: password };
    const length = codePoints(value);
    if (length < MIN_LENGTH) return { text: MESSAGES.tooShort, field: password };
    if (length > MAX_LENGTH) return { text: MESSAGES.tooLong, field: password };
    if (confirmation.value !== value) return { text: MESSAGES.mismatch, field: confirmation };
    return null;
  }

  // A 400's "detail" in words for the user. The server's details
  // (src/auth/credentials/password_rules.cpp, src/api/reset.cpp) are
  // "password: must be at least 8 characters", "... at most 255 ...",
  // "... must not be the account's e-mail address", "... must be valid
  // UTF-8", "password: must not be empty", and "token: ..." for a link
  // that lost its token.
  function badRequestText(detail) {
    const d = typeof detail === 'string' ? detail.toLowerCase() : '';
    if (d.startsWith('password') && d.includes('empty')) return MESSAGES.empty;
    if (d.includes('at least')) return MESSAGES.tooShort;
    if (d.includes('at most')) return MESSAGES.tooLong;
    if (d.includes('e-mail') || d.includes('email')) return MESSAGES.sameAsEmail;
    if (d.includes('utf-8')) return MESSAGES.notText;
    if (d.startsWith('token')) return MESSAGES.badLink;
    return MESSAGES.badRequest;
  }

  function markInvalid(field) {
    for (const input of [password, confirmation]) {
      if (input === field) {
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-errormessage', 'status');
      } else {
        input.removeAttribute('aria-invalid');
        input.removeAttribute('aria-errormessage');
      }
    }
    if (field) field.focus();
  }

  // The end of the page's story: the form goes, the heading and the status
  // say what happened, and the status takes the focus.
  function finish(title, kind, text) {
    heading.textContent = title;
    document.title = title;
    form.hidden = true;
    intro.hidden = true;
    password.value = '';
    confirmation.value = '';
    say(kind, text);
    status.setAttribute('tabindex', '-1');
    status.focus();
  }

  async function send(token) {
    const problem = localProblem();
    if (problem) {
      say('error', problem.text);
      markInvalid(problem.field);
      return;
    }
    markInvalid(null);
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    say('info', MESSAGES.sending);
    let response;
    try {
      response = await fetch('reset', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: token, password: password.value }),
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer'
      });
    } catch (e) {
      say('error', MESSAGES.network);
      return;
    } finally {
      submit.disabled = false;
      form.removeAttribute('aria-busy');
    }
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    switch (response.status) {
      case 200:
        finish('Password changed', 'success', MESSAGES.success);
        break;
      case 401:
        finish('This link cannot be used', 'error', MESSAGES.badLink);
        break;
      case 400: {
        const text = badRequestText(body && body.detail);
        if (text === MESSAGES.badLink) {
          finish('This link cannot be used', 'error', text);
        } else {
          say('error', text);
          markInvalid(password);
        }
        break;
      }
      case 429:
        say('error', MESSAGES.tooMany);
        break;
      case 503:
        say('error', MESSAGES.unavailable);
        break;
      default:
        say('error', MESSAGES.serverError + ' (HTTP ' + response.status + ')');
    }
  }

  function start() {
    const token = takeToken();
    if (token === '') {
      finish('Reset link incomplete', 'error', MESSAGES.missingToken);
      return;
    }
    form.hidden = false;
    show.addEventListener('change', function () {
      const type = show.checked ? 'text' : 'password';
      password.type = type;
      confirmation.type = type;
    });
    for (const input of [password, confirmation]) {
      input.addEventListener('input', function () {
        input.removeAttribute('aria-invalid');
        input.removeAttribute('aria-errormessage');
      });
    }
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!submit.disabled) send(token);
    });
    password.focus();
  }

  start();
})();
