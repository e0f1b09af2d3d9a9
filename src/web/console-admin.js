// The operator's console (interface.md 21.1), its second script: the OpenID
// provider's clients (interface.md 17.3: register, edit the redirect URIs,
// rotate a secret, delete), the admin keys (10.2.9: create, revoke) and the
// audit trail (14.2.1: filters and pages).
// Built on window.AuthdConsole (console.js); the same rules: the admin API
// of this origin only, the DOM changed with textContent and attributes.
'use strict';

(function () {
  const c = window.AuthdConsole;
  const $ = c.$;

  // -------------------------------------------------------------------------
  // OAuth clients.

  let editing = null;  // the client whose redirect URIs are being edited

  function lines(text) {
    return text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  }

  function showSecret(client) {
    $('secret-box').hidden = !client.clientSecret;
    $('secret-value').textContent = client.clientSecret || '';
  }

  function button(text, label, onClick) {
    const node = c.element('button', text, 'write small secondary');
    node.type = 'button';
    node.disabled = !c.canWrite();
    node.setAttribute('aria-label', label);
    node.addEventListener('click', onClick);
    return node;
  }

  async function loadClients() {
    const body = $('clients').tBodies[0];
    c.clear(body);
    const result = await c.request('GET', '/admin/clients');
    if (result.status !== 200) return c.say('error', c.failure(result), true);
    for (const client of result.data.clients) {
      const row = body.insertRow();
      row.dataset.client = client.clientId;
      for (const text of [client.name, client.clientId, client.type, client.redirectUris.join('\n')]) {
        row.insertCell().textContent = text;
      }
      const actions = row.insertCell();
      actions.append(button('Edit', 'Edit the redirect URIs of ' + client.name, () => edit(client)));
      if (client.type === 'confidential') {
        actions.append(button('Rotate secret', 'Rotate the secret of ' + client.name, () => rotate(client)));
      }
      actions.append(button('Delete', 'Delete ' + client.name, () => remove(client)));
    }
  }

  function edit(client) {
    showSecret({});  // a secret shown once goes when the operator moves on
    editing = client;
    $('client-edit').hidden = false;
    $('client-edit-heading').textContent = 'Redirect URIs of ' + client.name;
    $('client-edit-uris').value = client.redirectUris.join('\n');
    $('client-edit-uris').focus();
  }

  async function saveEdit(event) {
    event.preventDefault();
    await c.run(async () => {
      const path = '/admin/clients/' + encodeURIComponent(editing.clientId);
      const result = await c.request('PATCH', path, { redirectUris: lines($('client-edit-uris').value) });
      if (result.status !== 200) return c.say('error', c.failure(result), true);
      $('client-edit').hidden = true;
      await loadClients();
      c.say('success', 'The redirect URIs of ' + result.data.name + ' are saved.', true);
    });
  }

  async function rotate(client) {
    await c.run(async () => {
      const result = await c.request('POST', '/admin/clients/' + encodeURIComponent(client.clientId) + '/secret');
      if (result.status !== 200) return c.say('error', c.failure(result), true);
      showSecret(result.data);
      c.say('success', 'A new secret for ' + client.name + '; the previous one keeps working for the overlap.', true);
    });
  }

  async function remove(client) {
    // A typed confirmation, as for erasing an account: the client's name.
    const typed = window.prompt('Deleting ' + client.name + ' revokes its tokens and consents. Type its name to confirm.');
    if (typed === null || typed.trim() !== client.name) return c.say('info', 'Nothing deleted.', true);
    await c.run(async () => {
      const result = await c.request('DELETE', '/admin/clients/' + encodeURIComponent(client.clientId));
      if (result.status !== 204) return c.say('error', c.failure(result), true);
      await loadClients();
      c.say('success', client.name + ' is deleted.', true);
    });
  }

  async function create(event) {
    event.preventDefault();
    const body = { name: $('client-name').value.trim(), type: $('client-type').value, redirectUris: lines($('client-uris').value) };
    await c.run(async () => {
      const result = await c.request('POST', '/admin/clients', body);
      if (result.status !== 201) return c.say('error', c.failure(result), true);
      $('client-name').value = '';
      $('client-uris').value = '';
      await loadClients();
      showSecret(result.data);
      c.say('success', result.data.name + ' is registered as ' + result.data.clientId + '.', true);
    });
  }

  c.views.clients = function () {
    $('clients-view').hidden = false;
    $('client-edit').hidden = true;
    showSecret({});
    c.run(loadClients);
  };

  // -------------------------------------------------------------------------
  // Admin keys (interface.md 10.2.9): the new key is shown once.

  function showKey(key) {
    $('key-box').hidden = !key;
    $('key-value').textContent = key || '';
  }

  async function loadKeys() {
    const body = $('keys').tBodies[0];
    c.clear(body);
    const result = await c.request('GET', '/admin/keys');
    if (result.status !== 200) return c.say('error', c.failure(result), true);
    for (const key of result.data.keys) {
      const row = body.insertRow();
      row.dataset.key = key.name;
      for (const text of [key.name, key.scope, c.when(key.createdAt), c.when(key.lastUsedAt)]) {
        row.insertCell().textContent = text;
      }
      row.insertCell().append(button('Revoke', 'Revoke the key ' + key.name, () => revokeKey(key)));
    }
  }

  async function revokeKey(key) {
    const typed = window.prompt('Revoking ' + key.name + ' refuses it from the next request on. Type its name to confirm.');
    if (typed === null || typed.trim() !== key.name) return c.say('info', 'Nothing revoked.', true);
    await c.run(async () => {
      const result = await c.request('DELETE', '/admin/keys/' + encodeURIComponent(key.name));
      if (result.status !== 204) return c.say('error', c.failure(result), true);
      await loadKeys();
      c.say('success', 'The key ' + key.name + ' is revoked.', true);
    });
  }

  async function createKey(event) {
    event.preventDefault();
    const body = { name: $('key-name').value.trim(), scope: $('key-scope').value };
    await c.run(async () => {
      const result = await c.request('POST', '/admin/keys', body);
      if (result.status !== 201) return c.say('error', c.failure(result, { 409: 'A key has this name already.' }), true);
      $('key-name').value = '';
      await loadKeys();
      showKey(result.data.key);
      c.say('success', 'The key ' + result.data.name + ' is created.', true);
    });
  }

  c.views.keys = function () {
    $('keys-view').hidden = false;
    showKey(null);
    c.run(loadKeys);
  };

  // -------------------------------------------------------------------------
  // The audit trail: filters, then pages by the cursor the API gives.

  let cursor = null;

  function eventsQuery() {
    const query = new URLSearchParams();
    for (const [id, name] of [['events-user', 'userId'], ['events-type', 'type'], ['events-since', 'since']]) {
      const value = $(id).value.trim();
      if (value !== '') query.set(name, value);
    }
    query.set('limit', $('events-limit').value);
    if (cursor) query.set('cursor', cursor);
    return query.toString();
  }

  async function loadEvents() {
    const result = await c.request('GET', '/admin/events?' + eventsQuery());
    const body = $('events').tBodies[0];
    c.clear(body);
    if (result.status !== 200) return c.say('error', c.failure(result), true);
    c.clearStatus();
    for (const event of result.data.events) c.eventRow(body, event);
    if (result.data.events.length === 0) c.say('info', 'No event matches.', false);
    cursor = result.data.nextCursor;
    $('events-next').hidden = cursor === null;
  }

  c.views.events = function (userId) {
    $('events-view').hidden = false;
    if (userId) $('events-user').value = userId;
    cursor = null;
    c.run(loadEvents);
  };

  document.addEventListener('DOMContentLoaded', () => {
    $('client-create').addEventListener('submit', create);
    $('key-create').addEventListener('submit', createKey);
    $('client-edit').addEventListener('submit', saveEdit);
    $('client-edit-cancel').addEventListener('click', () => { $('client-edit').hidden = true; });
    $('events-filter').addEventListener('submit', (event) => {
      event.preventDefault();
      cursor = null;
      c.run(loadEvents);
    });
    $('events-first').addEventListener('click', () => { cursor = null; c.run(loadEvents); });
    $('events-next').addEventListener('click', () => c.run(loadEvents));
  });
})();
