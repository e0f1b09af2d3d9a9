// The passkeys page (interface.md 16.8). A user signs in with a passkey
// (16.3: no e-mail typed) or with the e-mail and password (6 /login), a
// passkey or a code serving as the second factor when the account has one
// (16.4, 12.3); then lists the account's passkeys (16.5.1), adds one
// (16.2) and removes one (16.5.2), and signs out (6 /logout).
//
// Adding and removing a passkey need the password and, for an account that
// already has a second factor, that factor too (16.4.3): the request goes
// with the password alone first; its 403 with Authd-Second-Factor names the
// account's factors, and the page then asks the device for one of the
// account's passkeys at once (when "webauthn" is named) and sends the same
// request again with the assertion, or shows a code field (a TOTP code or a
// recovery code) when the passkey cannot be used or the account has a TOTP
// only. A wrong password's 403 has no such header. When the page of
// sign-in by mail is served (interface.md 19.6), a link leads there.
//
// The session's token is kept in a variable of this script only: never in
// localStorage, sessionStorage or a cookie, so it is gone with the page.
// Requests go to relative URLs (a configured path prefix works), without
// cookies (credentials: 'omit': the bearer header alone authenticates).
// The DOM is built with createElement and textContent only: the page runs
// under require-trusted-types-for 'script'.
'use strict';

(function () {
  const page = window.AuthdPage;  // common.js, loaded first
  const MESSAGES = {
    unsupported:
      'This browser cannot use passkeys here. Use a current browser, or sign in with your ' +
      'e-mail address and password.',
    insecure:
      'Passkeys need a secure connection (https). Sign in with your e-mail address and password.',
    askingDevice: 'Follow the instructions of your browser or device to use your passkey\u2026',
    confirmingWithPasskey:
      'Confirm it is you with one of your passkeys: follow the instructions of your browser or ' +
      'device\u2026',
    creatingOnDevice: 'Follow the instructions of your browser or device to create the passkey\u2026',
    cancelled: 'The passkey request was cancelled or timed out. You can try again.',
    deviceAlreadyHas:
      'This device already holds a passkey for your account. Use another device, or remove ' +
      'the old passkey first.',
    securityError:
      'Your browser refused to use passkeys for this address. Ask your administrator to check ' +
      'the server\u2019s passkey settings.',
    deviceError: 'Your device could not use the passkey. Please try again.',
    signingIn: 'Signing you in\u2026',
    signedIn: 'You are signed in.',
    emptyCredentials: 'Enter your e-mail address and your password.',
    badLogin: 'The e-mail address or the password is wrong. Please check them and try again.',
    badLoginRequest: 'Check the e-mail address and the password, then try again.',
    disabled: 'This account is disabled. Contact your administrator.',
    passkeyRefused:
      'This passkey was not accepted. It may have been removed from your account. Try another ' +
      'passkey, or sign in with your e-mail address and password.',
    passkeyUnreadable: 'Your browser\u2019s answer could not be read. Please try again.',
    secondFactorPasskey:
      'Your account is protected by a passkey. Use it to finish signing in.',
    secondFactorPasskeyOrCode:
      'Your account is protected by a second factor. Use your passkey, or enter a code from ' +
      'your authenticator app.',
    secondFactorCode: 'Enter the code from your authenticator app, or a recovery code.',
    secondFactorRecovery:
      'If you cannot use your passkey, enter one of your recovery codes instead.',
    secondFactorRefused:
      'That did not work: the second factor was not accepted. Try again, or use a recovery code.',
    emptyCode: 'Enter the code, or use your passkey.',
    loadingList: 'Loading your passkeys\u2026',
    emptyPassword: 'Enter your password to confirm.',
    wrongPassword: 'The password is wrong. Please try again.',
    badName: 'The name must be 1 to 64 characters.',
    changeNeedsCode:
      'Your account is protected by a second factor. Enter the code from your authenticator ' +
      'app, or a recovery code, to confirm.',
    changeCodeRefused: 'That did not work: the code was not accepted. Check it and try again.',
    changeCodeOrPasskey: 'Or leave the code empty to use your passkey.',
    changePasskeyRefused: 'That did not work: your passkey was not accepted. Try again, or enter',
    changeCodeInstead: 'You can also enter',
    changeTotpOrRecovery: 'a code from your authenticator app or a recovery code',
    changeRecovery: 'one of your recovery codes',
    tooManyPasskeys:
      'Your account already has 20 passkeys, the most it can have. Remove one you no longer ' +
      'use, then add the new one.',
    adding: 'Adding your passkey\u2026',
    added: 'Your passkey has been added. You can now sign in with it.',
    addedWithCodes:
      'Your passkey has been added. Save the recovery codes below: they are shown only once.',
    alreadyRegistered: 'This passkey is already registered, to this account or another one.',
    registrationRefused: 'The passkey could not be added: the server did not accept it',
    removing: 'Removing the passkey\u2026',
    removed: 'The passkey has been removed.',
    notFound: 'This passkey no longer exists. The list has been refreshed.',
    sessionEnded: 'Your session has ended. Please sign in again.',
    signingOut: 'Signing you out\u2026',
    signedOut: 'You are signed out.',
    signOutFailed: 'Could not sign out on the server. Please try again.',
    tooMany: 'Too many attempts. Please wait',
    unavailable:
      'The service is busy, or passkeys are not available on this server right now. Please try ' +
      'again in',
    network: 'Could not reach the server. Check your connection, then try again.',
    badRequest: 'The request was not accepted. Please check what you entered and try again.',
    serverError: 'Something went wrong on our side. Please try again later.'
  };

  const $ = (id) => document.getElementById(id);
  const heading = $('heading');
  const signin = $('signin');
  const passkeySignin = $('passkey-signin');
  const signinIntro = $('signin-intro');
  const separator = $('signin-separator');
  const passwordForm = $('password-form');
  const email = $('email');
  const password = $('password');
  const passwordSubmit = $('password-submit');
  const emailSignin = $('email-signin');
  const secondForm = $('second-factor-form');
  const secondIntro = $('second-factor-intro');
  const secondPasskey = $('second-factor-passkey');
  const secondCodeField = $('second-factor-code-field');
  const secondCodeLabel = $('second-factor-code-label');
  const secondCode = $('second-factor-code');
  const secondSubmit = $('second-factor-submit');
  const secondCancel = $('second-factor-cancel');
  const account = $('account');
  const signedInAs = $('signed-in-as');
  const list = $('passkey-list');
  const empty = $('passkeys-empty');
  const addPasskey = $('add-passkey');
  const addForm = $('add-form');
  const addName = $('add-name');
  const addPassword = $('add-password');
  const addCode = $('add-code');
  const addSubmit = $('add-submit');
  const addCancel = $('add-cancel');
  const recovery = $('recovery-codes');
  const recoveryList = $('recovery-code-list');
  const recoveryDone = $('recovery-done');
  const removeForm = $('remove-form');
  const removeIntro = $('remove-intro');
  const removePassword = $('remove-password');
  const removeCode = $('remove-code');
  const removeSubmit = $('remove-submit');
  const removeCancel = $('remove-cancel');
  const signOut = $('sign-out');

  // The session: the bearer token and the signed-in user, in memory only.
  let token = null;
  let user = null;
  // A password login waiting for its second factor: what the second
  // request repeats, forgotten once it ends either way.
  let pending = null;
  // The passkey that the remove form is about.
  let removing = null;
  // The second factor of a change (16.4.3), one per form: its code field,
  // and the account's factors as the last 403 named them (null until one).
  const addFactor = changeFactor('add');
  const removeFactor = changeFactor('remove');
  let busy = false;

  // -------------------------------------------------------------------------
  // Messages.

  const say = page.say;
  const clearStatus = page.clearStatus;
  const markInvalid = page.markInvalid;

  // The message of a failed response; `known` gives the statuses that the
  // caller words itself.
  function statusMessage(response, known) {
    return page.statusMessage(response, known, MESSAGES);
  }

  function setBusy(on) {
    busy = on;
    page.markBusy(on);
    if (!page.passkeysSupported()) passkeySignin.disabled = true;
  }

  // -------------------------------------------------------------------------
  // HTTP: relative URLs, no cookies, the token as a bearer header.

  // The response with its JSON body (null when there is none), or null when
  // the server could not be reached.
  function call(method, route, body, withToken) {
    return page.send(method, route, body, 'omit', withToken ? { Authorization: 'Bearer ' + token } : {});
  }

  // -------------------------------------------------------------------------
  // WebAuthn (common.js): `forChange`, the second factor of adding or
  // removing a passkey (16.4.3), asks for user verification "preferred".

  const creationOptions = page.creationOptions;
  const credentialJson = page.credentialJson;
  const passkeysSupported = page.passkeysSupported;
  const secondFactors = page.secondFactors;
  const codeMember = page.codeMember;

  function deviceMessage(error) {
    return page.deviceMessage(error, MESSAGES);
  }

  function assertion(forChange) {
    return page.assertion(MESSAGES, 'omit', forChange);
  }

  // -------------------------------------------------------------------------
  // Signing in.

  // A 200 of a login: the token from the Authorization header, kept here.
  function takeSession(response) {
    const header = response.headers.get('Authorization') || '';
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match) {
      say('error', MESSAGES.serverError + ' (no session token)', true);
      return false;
    }
    token = match[1];
    user = response.body || {};
    return true;
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
      const response = await call('POST', 'webauthn/login', { credential: made.json }, false);
      if (!response) {
        say('error', MESSAGES.network, true);
        return;
      }
      if (response.status === 200) {
        if (takeSession(response)) await showAccount(MESSAGES.signedIn);
        return;
      }
      say('error', statusMessage(response, {
        400: MESSAGES.passkeyUnreadable,
        401: MESSAGES.passkeyRefused,
        403: MESSAGES.disabled
      }), true);
    } finally {
      setBusy(false);
    }
  }

  // POST login with the pending e-mail and password and `extra` (otp,
  // recoveryCode or webauthn): signed in, or what to do next.
  async function passwordLogin(extra) {
    const body = Object.assign({ email: pending.email, password: pending.password }, extra);
    say('info', MESSAGES.signingIn);
    const response = await call('POST', 'login', body, false);
    if (!response) {
      say('error', MESSAGES.network, true);
      return;
    }
    if (response.status === 200) {
      pending = null;
      password.value = '';
      secondCode.value = '';
      if (takeSession(response)) await showAccount(MESSAGES.signedIn);
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
        say('error', MESSAGES.secondFactorRefused, true);
        markInvalid(secondCode, extra.webauthn === undefined);
      } else {
        clearStatus();  // the form's introduction says what to do
        secondCode.focus();
      }
      return;
    }
    if (response.status === 401) {
      // The password itself was refused (changed meanwhile, or wrong).
      endSecondFactor();
      say('error', MESSAGES.badLogin, true);
      markInvalid(password, true);
      return;
    }
    if (response.status === 400) {
      const detail = response.body && typeof response.body.detail === 'string' ? response.body.detail : '';
      if (/^(otp|recoverycode|webauthn)/i.test(detail) && pending.factors) {
        say('error', MESSAGES.secondFactorRefused, true);
        return;
      }
      endSecondFactor();
      say('error', MESSAGES.badLoginRequest, true);
      return;
    }
    if (response.status === 403) endSecondFactor();
    say('error', statusMessage(response, { 403: MESSAGES.disabled }), true);
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
    const passkey = factors.includes('webauthn');
    const totp = factors.includes('totp');
    passwordForm.hidden = true;
    passkeySignin.hidden = true;
    separator.hidden = true;
    signinIntro.hidden = true;
    secondForm.hidden = false;
    secondPasskey.hidden = !passkey;
    secondCodeField.hidden = false;
    if (passkey && totp) secondIntro.textContent = MESSAGES.secondFactorPasskeyOrCode;
    else if (passkey) secondIntro.textContent = MESSAGES.secondFactorPasskey + ' ' + MESSAGES.secondFactorRecovery;
    else secondIntro.textContent = MESSAGES.secondFactorCode;
    secondCodeLabel.textContent = totp ? 'Code from your authenticator app, or a recovery code' : 'Recovery code';
    secondCode.setAttribute('inputmode', totp ? 'numeric' : 'text');
    secondSubmit.textContent = 'Continue with the code';
  }

  function endSecondFactor() {
    pending = null;
    secondCode.value = '';
    markInvalid(secondCode, false);
    secondForm.hidden = true;
    passwordForm.hidden = false;
    passkeySignin.hidden = false;
    separator.hidden = false;
    signinIntro.hidden = false;
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

  async function secondFactorWithCode() {
    if (!pending) return;
    const code = secondCode.value.trim();
    if (code === '') {
      say('error', MESSAGES.emptyCode, true);
      markInvalid(secondCode, true);
      return;
    }
    markInvalid(secondCode, false);
    const extra = codeMember(code, pending.factors);
    setBusy(true);
    try {
      await passwordLogin(extra);
    } finally {
      setBusy(false);
    }
  }

  // -------------------------------------------------------------------------
  // Signed in: the list, adding, removing, signing out.

  function showSignIn() {
    token = null;
    user = null;
    removing = null;
    account.hidden = true;
    addForm.hidden = true;
    removeForm.hidden = true;
    recovery.hidden = true;
    recoveryList.replaceChildren();
    list.replaceChildren();
    addPassword.value = '';
    removePassword.value = '';
    resetChangeFactor(addFactor);
    resetChangeFactor(removeFactor);
    password.value = '';
    endSecondFactor();
    signin.hidden = false;
    heading.textContent = 'Sign in to manage your passkeys';
    document.title = 'Passkeys';
  }

  // A 401 of a bearer route: the session is gone.
  function sessionEnded() {
    showSignIn();
    say('error', MESSAGES.sessionEnded, true);
  }

  async function showAccount(message) {
    signin.hidden = true;
    account.hidden = false;
    heading.textContent = 'Your passkeys';
    document.title = 'Your passkeys';
    const who = user && typeof user.email === 'string' ? user.email : '';
    signedInAs.textContent = who ? 'Signed in as ' + who + '.' : 'You are signed in.';
    addForm.hidden = true;
    removeForm.hidden = true;
    addPasskey.hidden = false;
    if (await refreshList()) say('success', message, true);
  }

  function formatTime(value) {
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return String(value);
    return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }

  function timeElement(value) {
    const time = document.createElement('time');
    time.dateTime = value;
    time.textContent = formatTime(value);
    return time;
  }

  function passkeyItem(passkey) {
    const item = document.createElement('li');
    item.className = 'passkey';
    item.dataset.passkeyId = passkey.id;
    item.dataset.lastUsedAt = passkey.lastUsedAt || '';

    const name = document.createElement('span');
    name.className = 'passkey-name';
    name.textContent = passkey.name || 'Passkey';
    item.appendChild(name);

    const dates = document.createElement('span');
    dates.className = 'passkey-dates';
    dates.append('Added ');
    dates.appendChild(timeElement(passkey.createdAt));
    if (passkey.lastUsedAt) {
      dates.append(', last used ');
      dates.appendChild(timeElement(passkey.lastUsedAt));
    } else {
      dates.append(', never used to sign in');
    }
    dates.append(passkey.backedUp ? '. Synced (backed up).' : '.');
    item.appendChild(dates);

    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'passkey-remove secondary';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', 'Remove the passkey \u201c' + name.textContent + '\u201d');
    remove.addEventListener('click', function () {
      if (!busy) openRemove(passkey.id, name.textContent, remove);
    });
    item.appendChild(remove);
    return item;
  }

  // GET webauthn/credentials: true when the list is shown.
  async function refreshList() {
    const response = await call('GET', 'webauthn/credentials', undefined, true);
    if (!response) {
      say('error', MESSAGES.network, true);
      return false;
    }
    if (response.status === 401) {
      sessionEnded();
      return false;
    }
    if (response.status !== 200 || !response.body || !Array.isArray(response.body.passkeys)) {
      say('error', statusMessage(response, {}), true);
      return false;
    }
    const items = response.body.passkeys.map(passkeyItem);
    list.replaceChildren(...items);
    empty.hidden = items.length > 0;
    return true;
  }

  // -------------------------------------------------------------------------
  // The second factor of a change (16.4.3).

  function changeFactor(prefix) {
    return {
      field: $(prefix + '-code-field'),
      label: $(prefix + '-code-label'),
      input: $(prefix + '-code'),
      hint: $(prefix + '-code-hint'),
      factors: null
    };
  }

  // Back to the form's first state: no code field, no factor known.
  function resetChangeFactor(factor) {
    factor.factors = null;
    factor.input.value = '';
    markInvalid(factor.input, false);
    factor.field.hidden = true;
  }

  // Shows the code field, worded for the account's factors.
  function showChangeCode(factor) {
    const totp = factor.factors.includes('totp');
    const passkey = factor.factors.includes('webauthn');
    factor.label.textContent = totp ? 'Code from your authenticator app, or a recovery code' : 'Recovery code';
    factor.input.setAttribute('inputmode', totp ? 'numeric' : 'text');
    let hint = totp ? 'Six digits from your authenticator app, or one of your recovery codes.'
      : 'One of the recovery codes you saved when you set up your second factor.';
    if (passkey) hint += ' Leave it empty to use your passkey.';
    factor.hint.textContent = hint;
    factor.field.hidden = false;
  }

  // POST `route` with `body` (the password) as a change of the account's
  // passkeys: sent as it is first, or with the second factor once a 403 has
  // named the account's factors: the code typed in the form's code field,
  // or else one of the account's passkeys, asked of the device (again at
  // once after a 403 that names "webauthn"; each assertion is sent once).
  // Returns the server's answer to the caller, or null when this function
  // has already said what to do (the second factor is missing or refused,
  // or the server could not be reached).
  async function sendChange(route, body, factor) {
    const code = factor.field.hidden ? '' : factor.input.value.trim();
    let extra = null;
    if (code !== '') {
      extra = codeMember(code, factor.factors);
    } else if (factor.factors && factor.factors.includes('webauthn')) {
      extra = await changeAssertion(factor);
      if (!extra) return null;
    } else if (factor.factors) {
      // A TOTP only, and no code typed.
      showChangeCode(factor);
      say('error', MESSAGES.changeNeedsCode, true);
      markInvalid(factor.input, true);
      return null;
    }
    let response = await call('POST', route, Object.assign({}, body, extra), true);
    if (!response) {
      say('error', MESSAGES.network, true);
      return null;
    }
    let factors = secondFactors(response);
    if (response.status === 403 && factors.length > 0 && extra === null && factors.includes('webauthn')) {
      // The right password, and the account has a passkey: use it at once.
      factor.factors = factors;
      extra = await changeAssertion(factor);
      if (!extra) return null;
      response = await call('POST', route, Object.assign({}, body, extra), true);
      if (!response) {
        say('error', MESSAGES.network, true);
        return null;
      }
      factors = secondFactors(response);
    }
    if (response.status === 403 && factors.length > 0) {
      factor.factors = factors;
      showChangeCode(factor);
      if (extra === null) {
        // A TOTP only: not a mistake, the next step.
        say('info', MESSAGES.changeNeedsCode);
        factor.input.focus();
      } else if (extra.webauthn !== undefined) {
        say('error', MESSAGES.changePasskeyRefused + ' ' + codeKinds(factor) + '.', true);
      } else {
        factor.input.value = '';
        say('error', MESSAGES.changeCodeRefused +
          (factor.factors.includes('webauthn') ? ' ' + MESSAGES.changeCodeOrPasskey : ''), true);
        markInvalid(factor.input, true);
      }
      return null;
    }
    return response;
  }

  // An assertion of one of the account's passkeys as { webauthn }, or null
  // once the refusal has been said (and the code field shown).
  async function changeAssertion(factor) {
    const made = await assertion(true);
    if (made.json) return { webauthn: made.json };
    showChangeCode(factor);
    say('error', made.message + ' ' + MESSAGES.changeCodeInstead + ' ' + codeKinds(factor) + ' instead.', true);
    return null;
  }

  function codeKinds(factor) {
    return factor.factors.includes('totp') ? MESSAGES.changeTotpOrRecovery : MESSAGES.changeRecovery;
  }

  // -------------------------------------------------------------------------
  // Adding a passkey.

  function openAdd() {
    removeForm.hidden = true;
    addForm.hidden = false;
    addPasskey.hidden = true;
    addName.value = '';
    addPassword.value = '';
    markInvalid(addPassword, false);
    resetChangeFactor(addFactor);
    clearStatus();
    addName.focus();
  }

  function closeAdd() {
    addForm.hidden = true;
    addPasskey.hidden = false;
    addPassword.value = '';
    markInvalid(addPassword, false);
    markInvalid(addName, false);
    resetChangeFactor(addFactor);
  }

  function showRecoveryCodes(codes) {
    const items = codes.map(function (code) {
      const item = document.createElement('li');
      item.textContent = String(code);
      return item;
    });
    recoveryList.replaceChildren(...items);
    recovery.hidden = false;
  }

  async function addPasskeyNow() {
    markInvalid(addPassword, false);
    markInvalid(addName, false);
    const name = addName.value.trim();
    if (addPassword.value === '') {
      say('error', MESSAGES.emptyPassword, true);
      markInvalid(addPassword, true);
      return;
    }
    if (Array.from(name).length > 64) {
      say('error', MESSAGES.badName, true);
      markInvalid(addName, true);
      return;
    }
    if (!passkeysSupported()) {
      say('error', window.isSecureContext ? MESSAGES.unsupported : MESSAGES.insecure, true);
      return;
    }
    setBusy(true);
    try {
      say('info', MESSAGES.adding);
      const options = await sendChange('webauthn/register/options', { password: addPassword.value }, addFactor);
      if (!options) return;
      if (options.status === 401) {
        sessionEnded();
        return;
      }
      if (options.status !== 200 || !options.body || !options.body.publicKey) {
        say('error', statusMessage(options, { 403: MESSAGES.wrongPassword, 409: MESSAGES.tooManyPasskeys }), true);
        if (options.status === 403 || options.status === 400) markInvalid(addPassword, true);
        return;
      }
      // The password and the second factor are used: a new try asks again
      // (the passkey at once, the factors being known).
      addPassword.value = '';
      addFactor.input.value = '';
      say('info', MESSAGES.creatingOnDevice);
      let credential;
      try {
        credential = await navigator.credentials.create({
          publicKey: creationOptions(options.body.publicKey)
        });
      } catch (error) {
        say('error', deviceMessage(error), true);
        return;
      }
      if (!credential) {
        say('error', MESSAGES.cancelled, true);
        return;
      }
      const body = { credential: credentialJson(credential) };
      if (name !== '') body.name = name;
      say('info', MESSAGES.adding);
      const response = await call('POST', 'webauthn/register', body, true);
      if (!response) {
        say('error', MESSAGES.network, true);
        return;
      }
      if (response.status === 401) {
        sessionEnded();
        return;
      }
      if (response.status !== 201 && response.status !== 200) {
        let text;
        if (response.status === 400) {
          const detail = response.body && typeof response.body.detail === 'string' ? response.body.detail : '';
          if (detail.startsWith('name')) {
            text = MESSAGES.badName;
            markInvalid(addName, true);
          } else {
            text = MESSAGES.registrationRefused + (detail ? ' (' + detail + ').' : '.');
          }
        } else {
          text = statusMessage(response, { 409: MESSAGES.alreadyRegistered });
        }
        say('error', text, true);
        return;
      }
      closeAdd();
      const codes = response.body && Array.isArray(response.body.recoveryCodes) ? response.body.recoveryCodes : null;
      if (codes && codes.length > 0) showRecoveryCodes(codes);
      if (await refreshList()) {
        say('success', codes ? MESSAGES.addedWithCodes : MESSAGES.added, !codes);
        if (codes) recovery.focus();
      }
    } finally {
      setBusy(false);
    }
  }

  function openRemove(id, name, opener) {
    removing = { id: id, name: name, opener: opener };
    addForm.hidden = true;
    addPasskey.hidden = false;
    removeIntro.textContent = 'Remove the passkey \u201c' + name + '\u201d? You will no longer be ' +
      'able to sign in with it. Enter your password to confirm.';
    removePassword.value = '';
    markInvalid(removePassword, false);
    resetChangeFactor(removeFactor);
    removeForm.hidden = false;
    clearStatus();
    removePassword.focus();
  }

  function closeRemove() {
    const opener = removing && removing.opener;
    removing = null;
    removeForm.hidden = true;
    removePassword.value = '';
    markInvalid(removePassword, false);
    resetChangeFactor(removeFactor);
    if (opener && opener.isConnected) opener.focus();
  }

  async function removeNow() {
    if (!removing) return;
    markInvalid(removePassword, false);
    if (removePassword.value === '') {
      say('error', MESSAGES.emptyPassword, true);
      markInvalid(removePassword, true);
      return;
    }
    setBusy(true);
    try {
      say('info', MESSAGES.removing);
      const route = 'webauthn/credentials/' + encodeURIComponent(removing.id) + '/remove';
      const response = await sendChange(route, { password: removePassword.value }, removeFactor);
      if (!response) return;
      if (response.status === 401) {
        sessionEnded();
        return;
      }
      if (response.status === 404) {
        closeRemove();
        if (await refreshList()) say('error', MESSAGES.notFound, true);
        return;
      }
      if (response.status !== 204 && response.status !== 200) {
        say('error', statusMessage(response, { 403: MESSAGES.wrongPassword }), true);
        if (response.status === 403 || response.status === 400) markInvalid(removePassword, true);
        return;
      }
      closeRemove();
      if (await refreshList()) say('success', MESSAGES.removed, true);
    } finally {
      setBusy(false);
    }
  }

  async function signOutNow() {
    setBusy(true);
    try {
      say('info', MESSAGES.signingOut);
      const response = await call('POST', 'logout', undefined, true);
      if (!response) {
        say('error', MESSAGES.network, true);
        return;
      }
      // 200: signed out; 400/401: the token was no longer good anyway.
      if (response.status === 200 || response.status === 400 || response.status === 401) {
        showSignIn();
        say('success', MESSAGES.signedOut, true);
        return;
      }
      say('error', response.status === 429 || response.status === 503
        ? statusMessage(response, {}) : MESSAGES.signOutFailed, true);
    } finally {
      setBusy(false);
    }
  }

  // -------------------------------------------------------------------------

  // The page of sign-in by mail (interface.md 19.6) is served only with
  // --email-signin on (404 otherwise): its link shows once a GET finds it.
  async function offerEmailSignin() {
    let found = false;
    try {
      const response = await fetch('signin/email', {
        method: 'GET',
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer'
      });
      found = response.status === 200;
    } catch (e) {
      found = false;
    }
    emailSignin.hidden = !found;
  }

  function onSubmit(form, action) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!busy) action();
    });
  }

  function start() {
    passkeySignin.addEventListener('click', function () {
      if (!busy) signInWithPasskey();
    });
    onSubmit(passwordForm, signInWithPassword);
    secondPasskey.addEventListener('click', function () {
      if (!busy) secondFactorWithPasskey();
    });
    onSubmit(secondForm, secondFactorWithCode);
    secondCancel.addEventListener('click', function () {
      if (busy) return;
      endSecondFactor();
      password.value = '';
      clearStatus();
      password.focus();
    });
    addPasskey.addEventListener('click', function () {
      if (!busy) openAdd();
    });
    onSubmit(addForm, addPasskeyNow);
    addCancel.addEventListener('click', function () {
      if (busy) return;
      closeAdd();
      clearStatus();
      addPasskey.focus();
    });
    onSubmit(removeForm, removeNow);
    removeCancel.addEventListener('click', function () {
      if (busy) return;
      closeRemove();
      clearStatus();
    });
    recoveryDone.addEventListener('click', function () {
      recovery.hidden = true;
      recoveryList.replaceChildren();
      addPasskey.focus();
    });
    signOut.addEventListener('click', function () {
      if (!busy) signOutNow();
    });
    for (const input of [email, password, secondCode, addName, addPassword, addCode, removePassword, removeCode]) {
      input.addEventListener('input', function () {
        markInvalid(input, false);
      });
    }
    showSignIn();
    if (!passkeysSupported()) {
      passkeySignin.disabled = true;
      say('info', window.isSecureContext ? MESSAGES.unsupported : MESSAGES.insecure);
    }
    offerEmailSignin();
  }

  start();
})();
