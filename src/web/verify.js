// The sign-up confirmation page (interface.md 11.5). The link in the mail
// is {public_url}/verify#token=...: the fragment never reaches a server or
// a Referer header. The script reads the token, removes it from the
// address bar and the history entry, and asks for the password chosen at
// the sign-up: the token alone confirms nothing, so that whoever opens the
// mail cannot complete somebody else's sign-up of the address. Both go to
// POST verify (relative to this page, so a configured path prefix works).
// A wrong password leaves the link usable, so the form stays for another
// try. The session that the 201 opens is not kept: the page has nowhere
// safe to keep it, and the user signs in to the application with the
// e-mail address and password they chose.
'use strict';

(function () {
  const MESSAGES = {
    missingToken:
      'This address does not contain a confirmation code. Open the link from your ' +
      'sign-up e-mail again (the whole link).',
    empty: 'Enter the password you chose when you signed up.',
    sending: 'Confirming your e-mail address and creating your account\u2026',
    success:
      'Your e-mail address is confirmed and your account has been created. ' +
      'You can now sign in with this address and the password you chose.',
    refused:
      'This did not confirm the account. Either the password is not the one chosen for ' +
      'the newest sign-up of this address, or the link can no longer be used (it has ' +
      'been used, it has expired, or the address already has an account). Check the ' +
      'password and try again; if it still fails, sign up again and use the newest e-mail.',
    badLink:
      'This confirmation link cannot be used: it is not complete or not valid. Open the ' +
      'link from your newest sign-up e-mail again (the whole link).',
    tooMany: 'Too many attempts. Please wait a few minutes, then try again.',
    unavailable: 'The service is busy or briefly unavailable. Please try again in a moment.',
    network: 'Could not reach the server. Check your connection, then try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const form = document.getElementById('verify-form');
  const password = document.getElementById('password');
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
      window.history.replaceState(null, '', window.location.pathname + window.location.search);
    }
    return token;
  }

  function say(kind, text) {
    status.className = 'status ' + kind;
    status.textContent = text;
  }

  // A message about the password: the field is marked and takes the focus.
  function sayAboutPassword(text) {
    say('error', text);
    password.setAttribute('aria-invalid', 'true');
    password.setAttribute('aria-errormessage', 'status');
    password.focus();
  }

  // The end of the page's story: the form goes, the heading and the status
  // say what happened, and the status takes the focus.
  function finish(title, kind, text) {
    heading.textContent = title;
    document.title = title;
    form.hidden = true;
    intro.hidden = true;
    password.value = '';
    say(kind, text);
    status.setAttribute('tabindex', '-1');
    status.focus();
  }

  async function send(token) {
    if (password.value === '') {
      sayAboutPassword(MESSAGES.empty);
      return;
    }
    password.removeAttribute('aria-invalid');
    password.removeAttribute('aria-errormessage');
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    say('info', MESSAGES.sending);
    let response;
    try {
      response = await fetch('verify', {
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
    switch (response.status) {
      case 201:
        finish('Your account is ready', 'success', MESSAGES.success);
        break;
      case 401:
        sayAboutPassword(MESSAGES.refused);
        break;
      case 400:
        finish('This link cannot be used', 'error', MESSAGES.badLink);
        break;
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
      finish('Confirmation link incomplete', 'error', MESSAGES.missingToken);
      return;
    }
    form.hidden = false;
    show.addEventListener('change', function () {
      password.type = show.checked ? 'text' : 'password';
    });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      send(token);
    });
    password.focus();
  }

  start();
})();
