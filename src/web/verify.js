// The sign-up confirmation page (interface.md 11.5). The link in the mail
// is {public_url}/verify#token=...: the fragment never reaches a server or
// a Referer header. The script reads the token, removes it from the
// address bar and the history entry, and sends it to POST verify (relative
// to this page, so a configured path prefix works) at once: opening the
// link is the confirmation. The session that the 201 opens is not kept:
// the page has nowhere safe to keep it, and the user signs in to the
// application with the e-mail address and password they chose.
'use strict';

(function () {
  const MESSAGES = {
    missingToken:
      'This address does not contain a confirmation code. Open the link from your ' +
      'sign-up e-mail again (the whole link).',
    sending: 'Confirming your e-mail address and creating your account\u2026',
    success:
      'Your e-mail address is confirmed and your account has been created. ' +
      'You can now sign in with this address and the password you chose.',
    badLink:
      'This confirmation link cannot be used: it has already been used, it has expired, ' +
      'or it is not valid, or the address already has an account. If you confirmed ' +
      'already, sign in; otherwise sign up again and use the link in the newest e-mail.',
    tooMany: 'Too many attempts. Please wait a few minutes, then try again.',
    unavailable: 'The service is busy or briefly unavailable. Please try again in a moment.',
    network: 'Could not reach the server. Check your connection, then try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const status = document.getElementById('status');
  const heading = document.getElementById('heading');
  const retry = document.getElementById('retry');

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

  // The heading and the status say what happened; the status takes the
  // focus so that screen readers read it. `canRetry` offers the button.
  function show(title, kind, text, canRetry) {
    heading.textContent = title;
    document.title = title;
    status.className = 'status ' + kind;
    status.textContent = text;
    retry.hidden = !canRetry;
    status.setAttribute('tabindex', '-1');
    status.focus();
  }

  async function send(token) {
    retry.hidden = true;
    show('Confirming your account', 'info', MESSAGES.sending, false);
    let response;
    try {
      response = await fetch('verify', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: token }),
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer'
      });
    } catch (e) {
      show('Could not confirm yet', 'error', MESSAGES.network, true);
      return;
    }
    switch (response.status) {
      case 201:
        show('Your account is ready', 'success', MESSAGES.success, false);
        break;
      case 400:
      case 401:
        show('This link cannot be used', 'error', MESSAGES.badLink, false);
        break;
      case 429:
        show('Could not confirm yet', 'error', MESSAGES.tooMany, true);
        break;
      case 503:
        show('Could not confirm yet', 'error', MESSAGES.unavailable, true);
        break;
      default:
        show('Could not confirm yet', 'error',
             MESSAGES.serverError + ' (HTTP ' + response.status + ')', true);
    }
  }

  function start() {
    const token = takeToken();
    if (token === '') {
      show('Confirmation link incomplete', 'error', MESSAGES.missingToken, false);
      return;
    }
    retry.addEventListener('click', function () {
      send(token);
    });
    send(token);
  }

  start();
})();
