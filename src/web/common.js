// What the browser pages share (src/web/signin.js, passkeys.js, email.js),
// served at GET /common.js and loaded by each of those pages before its own
// script (both with defer, so in that order). It defines one global,
// window.AuthdPage, and touches no element until a page calls it:
// - the status line (#status, role=status) and fields marked invalid;
// - the busy state of the page's buttons;
// - "Retry-After" and the shared failures (400, 429, 503, any other) in
//   words, from the page's own MESSAGES;
// - a JSON request to a relative URL, never following a redirect, without
//   Referer, and the factors an Authd-Second-Factor header names (12.3);
// - passkeys (interface.md 16.2, 16.3): the server's options (base64url in
//   JSON) in, the credential's JSON out, with the browser's own converters
//   when it has them and a small manual conversion otherwise.
// The DOM is changed with textContent and attributes only: the pages run
// under require-trusted-types-for 'script'.
'use strict';

window.AuthdPage = (function () {
  // -------------------------------------------------------------------------
  // Messages and the page's state.

  function say(kind, text, focus) {
    const status = document.getElementById('status');
    status.className = 'status ' + kind;
    status.textContent = text;
    if (focus) {
      status.setAttribute('tabindex', '-1');
      status.focus();
    }
  }

  function clearStatus() {
    const status = document.getElementById('status');
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

  // Every button disabled while a request runs, and <main> aria-busy.
  function markBusy(on) {
    for (const button of document.querySelectorAll('button')) button.disabled = on;
    document.querySelector('main').setAttribute('aria-busy', on ? 'true' : 'false');
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

  // The passing failures every request shares (429, 503, any other), in
  // the words of the page's `messages`.
  function passingFailure(response, messages) {
    switch (response.status) {
      case 429: return messages.tooMany + ' ' + waitText(response, 'a few minutes') + ', then try again.';
      case 503: return messages.unavailable + ' ' + waitText(response, 'a moment') + '.';
      default: return messages.serverError + ' (HTTP ' + response.status + ')';
    }
  }

  // The message of a failed response; `known` gives the statuses that the
  // caller words itself, then 400 is messages.badRequest.
  function statusMessage(response, known, messages) {
    if (known && Object.prototype.hasOwnProperty.call(known, response.status)) {
      return known[response.status];
    }
    if (response.status === 400) return messages.badRequest;
    return passingFailure(response, messages);
  }

  // -------------------------------------------------------------------------
  // HTTP.

  // `method` `route` (relative to the page) with `body` as JSON when it is
  // not undefined: { status, headers, body } with the JSON body (null when
  // there is none), or null when the server could not be reached.
  async function send(method, route, body, credentials, headers) {
    const init = {
      method: method,
      headers: Object.assign({}, headers),
      credentials: credentials,
      cache: 'no-store',
      redirect: 'error',
      referrerPolicy: 'no-referrer'
    };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(route, init);
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

  // A typed code as the body's member: six digits are a TOTP code (12.3.3)
  // when the account has one; anything else a recovery code.
  function codeMember(typed, factors) {
    return /^\d{6}$/.test(typed) && factors && factors.includes('totp')
      ? { otp: typed } : { recoveryCode: typed };
  }

  // -------------------------------------------------------------------------
  // Passkeys.

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

  function descriptors(list) {
    return (Array.isArray(list) ? list : []).map(function (d) {
      const out = { type: d.type, id: fromBase64url(d.id) };
      if (Array.isArray(d.transports)) out.transports = d.transports;
      return out;
    });
  }

  function creationOptions(json) {
    if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function') {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    const options = Object.assign({}, json);
    options.challenge = fromBase64url(json.challenge);
    options.user = Object.assign({}, json.user, { id: fromBase64url(json.user.id) });
    options.excludeCredentials = descriptors(json.excludeCredentials);
    return options;
  }

  function requestOptions(json) {
    if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function') {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    const options = Object.assign({}, json);
    options.challenge = fromBase64url(json.challenge);
    options.allowCredentials = descriptors(json.allowCredentials);
    return options;
  }

  // The JSON of a new credential (an attestation) or of an assertion.
  function credentialJson(credential) {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    const r = credential.response;
    const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toBase64url(r.attestationObject);
      if (typeof r.getTransports === 'function') response.transports = r.getTransports();
    } else {
      response.authenticatorData = toBase64url(r.authenticatorData);
      response.signature = toBase64url(r.signature);
      if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
    }
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

  // The device's error in the words of the page's `messages`; an
  // InvalidStateError (the device already holds a passkey of the account)
  // has its own words only where the page creates passkeys.
  function deviceMessage(error, messages) {
    const name = error && error.name;
    if (name === 'NotAllowedError' || name === 'AbortError') return messages.cancelled;
    if (name === 'InvalidStateError' && messages.deviceAlreadyHas) return messages.deviceAlreadyHas;
    if (name === 'SecurityError') return messages.securityError;
    if (name === 'NotSupportedError') return messages.unsupported;
    return messages.deviceError;
  }

  // Asks the server for a challenge (POST webauthn/login/options, with
  // `credentials`), then the device for an assertion: { json } or
  // { message } (the server's or the device's refusal, in the words of the
  // page's `messages`). `forChange`: the second factor of adding or removing
  // a passkey (16.4.3), where user verification is not required (the
  // password is the other factor, 16.4.1): "preferred", so that a security
  // key without a PIN serves too. `root`: the way from the page to the
  // public URL's root ("../../" for a page two folders down; "" when absent).
  async function assertion(messages, credentials, forChange, root) {
    if (!passkeysSupported()) {
      return { message: window.isSecureContext ? messages.unsupported : messages.insecure };
    }
    const options = await send('POST', (root || '') + 'webauthn/login/options', {}, credentials);
    if (!options) return { message: messages.network };
    if (options.status !== 200 || !options.body || !options.body.publicKey ||
        typeof options.body.publicKey !== 'object') {
      return { message: statusMessage(options, {}, messages) };
    }
    let publicKey = options.body.publicKey;
    if (forChange) publicKey = Object.assign({}, publicKey, { userVerification: 'preferred' });
    say('info', forChange ? messages.confirmingWithPasskey : messages.askingDevice);
    let credential;
    try {
      credential = await navigator.credentials.get({ publicKey: requestOptions(publicKey) });
    } catch (error) {
      return { message: deviceMessage(error, messages) };
    }
    if (!credential) return { message: messages.cancelled };
    return { json: credentialJson(credential) };
  }

  return Object.freeze({
    say: say,
    clearStatus: clearStatus,
    markInvalid: markInvalid,
    markBusy: markBusy,
    waitText: waitText,
    passingFailure: passingFailure,
    statusMessage: statusMessage,
    send: send,
    secondFactors: secondFactors,
    codeMember: codeMember,
    creationOptions: creationOptions,
    requestOptions: requestOptions,
    credentialJson: credentialJson,
    passkeysSupported: passkeysSupported,
    deviceMessage: deviceMessage,
    assertion: assertion
  });
})();
