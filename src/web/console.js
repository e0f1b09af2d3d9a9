// The operator's console (interface.md 21), GET /console/: sign-in with a
// password and a TOTP code, then the users: find one by e-mail or id,
// inspect it (the admin view, sessions, linked identities, recent events)
// and act on it. Every request goes to the admin API (or the console's own
// /console/sign-in, /console/sign-out, /console/session) of this origin,
// with the console's HttpOnly cookie; the browser adds the Origin the
// server checks on every change. No framework: the DOM is changed with
// textContent and attributes only (the page runs under
// require-trusted-types-for 'script'). window.AuthdConsole is what
// console-admin.js (OAuth clients, the audit trail) builds on.
'use strict';

window.AuthdConsole = (function () {
  const $ = (id) => document.getElementById(id);
  const state = { me: null, user: null };
  const views = {};  // name -> function(argument), rendering that view

  // -------------------------------------------------------------------------
  // Messages, busy state, elements.

  function say(kind, text, focus) {
    const status = $('status');
    status.className = 'status ' + kind;
    status.textContent = text;
    if (focus) {
      status.setAttribute('tabindex', '-1');
      status.focus();
    }
  }

  function clearStatus() {
    $('status').className = 'status';
    $('status').textContent = '';
  }

  function busy(on) {
    $('main').setAttribute('aria-busy', on ? 'true' : 'false');
    for (const button of document.querySelectorAll('main button')) {
      button.disabled = on || (button.classList.contains('write') && !canWrite());
    }
  }

  function canWrite() {
    return state.me !== null && state.me.scope === 'write';
  }

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function when(time) {
    if (!time) return '—';
    const date = new Date(time);
    return Number.isNaN(date.getTime()) ? time : date.toLocaleString();
  }

  // -------------------------------------------------------------------------
  // Requests: this origin only, never following a redirect, no Referer.

  class SignedOut extends Error {}

  async function request(method, path, body) {
    const init = { method, credentials: 'same-origin', redirect: 'error', referrerPolicy: 'no-referrer', headers: {} };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    if ((response.headers.get('Content-Type') || '').startsWith('application/json')) {
      data = await response.json().catch(() => null);
    }
    if (response.status === 401 && !path.startsWith('/console/')) {
      showSignIn('Your console session has ended (idle, signed out, or the grant withdrawn). Sign in again.');
      throw new SignedOut();
    }
    return { status: response.status, data, response };
  }

  // The words for a failed answer; `known` maps statuses the caller words.
  function failure(result, known) {
    if (known && known[result.status]) return known[result.status];
    switch (result.status) {
      case 400: return 'The request was refused: ' + ((result.data && result.data.detail) || 'bad request') + '.';
      case 403: return canWrite() ? 'Refused (403).' : 'Your grant is read-only: the console cannot change anything.';
      case 404: return 'Not found: it may have been removed meanwhile.';
      case 429: return 'Too many attempts. Wait ' + (result.response.headers.get('Retry-After') || 'a few') + ' seconds.';
      case 503: return 'authd cannot reach its database right now. Try again in a moment.';
      default: return 'Something went wrong (HTTP ' + result.status + ').';
    }
  }

  // Runs `work` with the page busy; a signed-out answer was handled already.
  async function run(work) {
    busy(true);
    try {
      await work();
    } catch (error) {
      if (!(error instanceof SignedOut)) say('error', 'authd did not answer: ' + error.message, true);
    } finally {
      busy(false);
    }
  }

  // -------------------------------------------------------------------------
  // Sign-in, sign-out, and the views.

  function showSignIn(message) {
    state.me = null;
    $('app').hidden = true;
    $('whoami').hidden = true;
    $('signout').hidden = true;
    $('signin-section').hidden = false;
    if (message) say('info', message, false);
    $('email').focus();
  }

  function showApp() {
    $('signin-section').hidden = true;
    $('app').hidden = false;
    $('whoami').hidden = false;
    $('signout').hidden = false;
    $('whoami').textContent = state.me.email + ' (' + state.me.scope + ')';
    document.body.classList.toggle('read-only', !canWrite());
    route();
  }

  async function signIn(event) {
    event.preventDefault();
    const code = $('code').value.trim();
    const body = { email: $('email').value.trim(), password: $('password').value };
    if (/^\d{6,8}$/.test(code)) body.otp = code; else body.recoveryCode = code;
    await run(async () => {
      const result = await request('POST', '/console/sign-in', body);
      $('password').value = '';
      $('code').value = '';
      if (result.status === 200) {
        state.me = result.data;
        clearStatus();
        showApp();
        return;
      }
      say('error', failure(result, {
        401: 'Wrong e-mail, password or code.',
        403: refusalText(result.response.headers.get('Authd-Console-Refusal'))
      }), true);
    });
  }

  function refusalText(reason) {
    switch (reason) {
      case 'not-operator': return 'This account is not an operator: ask for `authd operator grant`.';
      case 'second-factor-missing': return 'The console needs an authenticator (TOTP) on this account: set one up first.';
      default: return 'This account cannot sign in (disabled?).';
    }
  }

  async function signOut() {
    await run(async () => {
      await request('POST', '/console/sign-out');
      showSignIn('Signed out.');
    });
  }

  // #users, #user/ID, #clients, #events: the view and its argument.
  function route() {
    if (state.me === null) return;
    const [name, argument] = (location.hash.replace(/^#/, '') || 'users').split('/');
    for (const view of document.querySelectorAll('.view')) view.hidden = true;
    for (const link of document.querySelectorAll('#nav a')) {
      if (link.dataset.view === (name === 'user' ? 'users' : name)) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    const render = views[name] || views.users;
    render(argument ? decodeURIComponent(argument) : '');
  }

  views.users = function () {
    $('users-view').hidden = false;
    $('find-query').focus();
  };

  views.user = function (id) {
    $('user').hidden = false;
    run(() => loadUser(id));
  };

  // -------------------------------------------------------------------------
  // Users: find, inspect, act.

  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

  async function find(event) {
    event.preventDefault();
    const query = $('find-query').value.trim();
    if (query === '') return;
    await run(async () => {
      clear($('results'));
      if (UUID.test(query)) {
        location.hash = '#user/' + encodeURIComponent(query.toLowerCase());
        return;
      }
      const result = await request('GET', '/admin/users?email=' + encodeURIComponent(query));
      if (result.status !== 200) return say('error', failure(result), true);
      if (result.data.users.length === 0) return say('info', 'No account has this e-mail address.', true);
      clearStatus();
      for (const user of result.data.users) {
        const item = element('li');
        const link = element('a', user.email);
        link.href = '#user/' + encodeURIComponent(user.id);
        item.append(link, element('span', user.disabled ? ' disabled' : '', 'muted'));
        $('results').append(item);
      }
      $('results').querySelector('a').focus();
    });
  }

  function field(list, name, value) {
    list.append(element('dt', name), element('dd', value === null || value === undefined || value === '' ? '—' : value));
  }

  async function loadUser(id) {
    const result = await request('GET', '/admin/users/' + encodeURIComponent(id));
    if (result.status !== 200) {
      $('user').hidden = true;
      $('users-view').hidden = false;
      return say('error', failure(result, { 404: 'No account has this id.' }), true);
    }
    const user = (state.user = result.data);
    $('user-heading').textContent = user.email;
    const fields = $('user-fields');
    clear(fields);
    field(fields, 'Id', user.id);
    field(fields, 'Display name', user.displayName);
    field(fields, 'State', user.disabled ? 'Disabled' : 'Enabled');
    field(fields, 'E-mail verified', user.emailVerifiedAt ? when(user.emailVerifiedAt) : 'No');
    field(fields, 'Second factors', user.mfa.length ? user.mfa.join(', ') : 'None');
    field(fields, 'Created', when(user.createdAt));
    field(fields, 'Last login', when(user.lastLoginAt));
    $('toggle-disabled').textContent = user.disabled ? 'Enable the account' : 'Disable the account';
    $('erase-confirm').value = '';
    await Promise.all([loadSessions(user.id), loadIdentities(user.id), loadUserEvents(user.id)]);
    $('user-heading').focus();
  }

  async function loadSessions(id) {
    const body = $('sessions').tBodies[0];
    clear(body);
    const result = await request('GET', '/admin/users/' + encodeURIComponent(id) + '/sessions');
    if (result.status !== 200) return say('error', failure(result), false);
    if (result.data.sessions.length === 0) {
      const row = body.insertRow();
      const cell = row.insertCell();
      cell.colSpan = 5;
      cell.textContent = 'No live session.';
    }
    for (const session of result.data.sessions) {
      const row = body.insertRow();
      row.dataset.session = session.id;
      for (const text of [when(session.createdAt), when(session.expiresAt), session.clientAddress, session.userAgent]) {
        row.insertCell().textContent = text || '—';
      }
      const end = element('button', 'End', 'write small');
      end.type = 'button';
      end.disabled = !canWrite();
      end.setAttribute('aria-label', 'End the session started ' + when(session.createdAt));
      end.addEventListener('click', () => act('DELETE', '/admin/sessions/' + encodeURIComponent(session.id), 'The session has ended.'));
      row.insertCell().append(end);
    }
  }

  // Linked identities (GET /admin/users/{id}/identities), where the admin API has them.
  async function loadIdentities(id) {
    const result = await request('GET', '/admin/users/' + encodeURIComponent(id) + '/identities');
    $('identities-section').hidden = result.status !== 200;
    if (result.status !== 200) return;
    const list = $('identities');
    clear(list);
    const identities = result.data.identities || [];
    if (identities.length === 0) list.append(element('li', 'None.'));
    for (const identity of identities) {
      list.append(element('li', identity.provider + ': ' + (identity.email || identity.subject || identity.id)));
    }
  }

  function eventRow(body, event) {
    const row = body.insertRow();
    for (const text of [when(event.time), event.type, event.actor, JSON.stringify(event.detail)]) {
      row.insertCell().textContent = text;
    }
  }

  async function loadUserEvents(id) {
    const body = $('user-events').tBodies[0];
    clear(body);
    const result = await request('GET', '/admin/events?limit=10&userId=' + encodeURIComponent(id));
    if (result.status !== 200) return;
    for (const event of result.data.events) eventRow(body, event);
  }

  // One change to the shown user, then the user shown again.
  async function act(method, path, done, body) {
    await run(async () => {
      const result = await request(method, path, body);
      if (result.status >= 300) return say('error', failure(result), true);
      await loadUser(state.user.id);
      say('success', done, true);
    });
  }

  function userPath(suffix) {
    return '/admin/users/' + encodeURIComponent(state.user.id) + (suffix || '');
  }

  function toggleDisabled() {
    const disable = !state.user.disabled;
    act('PATCH', userPath(), disable ? 'The account is disabled; its sessions have ended.' : 'The account is enabled.', { disabled: disable });
  }

  async function erase(event) {
    event.preventDefault();
    const typed = $('erase-confirm').value.trim().toLowerCase();
    if (typed !== state.user.email.toLowerCase()) {
      $('erase-confirm').setAttribute('aria-invalid', 'true');
      return say('error', 'Type the account\'s e-mail address exactly to erase it.', true);
    }
    $('erase-confirm').removeAttribute('aria-invalid');
    await run(async () => {
      const email = state.user.email;
      const result = await request('DELETE', userPath());
      if (result.status !== 204) return say('error', failure(result), true);
      state.user = null;
      location.hash = '#users';
      say('success', 'The account ' + email + ' is erased.', true);
    });
  }

  // -------------------------------------------------------------------------
  // Start: who is signed in, if anyone.

  async function start() {
    $('signin').addEventListener('submit', signIn);
    $('signout').addEventListener('click', signOut);
    $('find').addEventListener('submit', find);
    $('toggle-disabled').addEventListener('click', toggleDisabled);
    $('end-sessions').addEventListener('click', () => act('DELETE', userPath('/sessions'), 'Every session of the account has ended.'));
    $('remove-factors').addEventListener('click', () => act('DELETE', userPath('/mfa'), 'The account\'s second factors are removed.'));
    $('send-reset').addEventListener('click', () => act('POST', userPath('/password-reset'), 'A password reset mail is on its way.'));
    $('erase').addEventListener('submit', erase);
    window.addEventListener('hashchange', route);
    try {
      const result = await request('GET', '/console/session');
      if (result.status === 200) {
        state.me = result.data;
        return showApp();
      }
    } catch (error) {
      return say('error', 'authd did not answer: ' + error.message, true);
    }
    showSignIn();
  }

  document.addEventListener('DOMContentLoaded', start);

  return { $, state, views, element, clear, when, request, failure, run, say, clearStatus, canWrite, eventRow, SignedOut };
})();
