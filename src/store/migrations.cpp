#include "store/migrations.hpp"

#include <iterator>
#include <vector>

#include "core/log.hpp"

namespace authd {
namespace {

// Times are integer milliseconds since the Unix epoch (UTC) in both dialects;
// token digests are raw SHA-256 bytes (BLOB, BYTEA).
constexpr Migration kFirstMigrations[] = {
    {1, "users, sessions, throttling events, mail outbox, reset tokens", R"sql(
CREATE TABLE users (
  id                TEXT PRIMARY KEY,
  email             TEXT NOT NULL UNIQUE,
  password_hash     TEXT,
  phone             TEXT,
  photo_url         TEXT,
  display_name      TEXT,
  email_verified_at INTEGER,
  phone_verified_at INTEGER,
  disabled          INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);

CREATE TABLE sessions (
  token_digest BLOB PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_user ON sessions(user_id);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);

CREATE TABLE throttle_events (
  id  INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  at  INTEGER NOT NULL
);
CREATE INDEX throttle_events_by_key ON throttle_events(key, at);
CREATE INDEX throttle_events_by_time ON throttle_events(at);

CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY,
  kind            TEXT NOT NULL,
  user_id         TEXT NOT NULL,
  email           TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  claimed_until   INTEGER,
  sent_at         INTEGER,
  last_error      TEXT
);
CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE sent_at IS NULL;

CREATE TABLE reset_tokens (
  token_digest BLOB PRIMARY KEY,
  user_id      TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
     R"sql(
CREATE TABLE users (
  id                TEXT PRIMARY KEY,
  email             TEXT NOT NULL UNIQUE,
  password_hash     TEXT,
  phone             TEXT,
  photo_url         TEXT,
  display_name      TEXT,
  email_verified_at BIGINT,
  phone_verified_at BIGINT,
  disabled          BOOLEAN NOT NULL DEFAULT false,
  created_at        BIGINT NOT NULL,
  updated_at        BIGINT NOT NULL
);

CREATE TABLE sessions (
  token_digest BYTEA PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at   BIGINT NOT NULL,
  expires_at   BIGINT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions(user_id);
CREATE INDEX sessions_by_expiry ON sessions(expires_at);

CREATE TABLE throttle_events (
  id  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key TEXT NOT NULL,
  at  BIGINT NOT NULL
);
CREATE INDEX throttle_events_by_key ON throttle_events(key, at);
CREATE INDEX throttle_events_by_time ON throttle_events(at);

CREATE TABLE outbox (
  id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind            TEXT NOT NULL,
  user_id         TEXT NOT NULL,
  email           TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  claimed_until   BIGINT,
  sent_at         BIGINT,
  last_error      TEXT
);
CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE sent_at IS NULL;

CREATE TABLE reset_tokens (
  token_digest BYTEA PRIMARY KEY,
  user_id      TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  created_at   BIGINT NOT NULL,
  expires_at   BIGINT NOT NULL
);
)sql"},
    // Logout marks the session instead of deleting it. SQLite (one instance)
    // marks from this release on; PostgreSQL keeps deleting, so that instances
    // of the previous release, which do not read the column, stay correct
    // during a rolling upgrade (add now, use in a later release).
    {2, "sessions.revoked_at: a logged-out session is marked, then pruned at its expiry",
     // The partial index lets GET /metrics count live sessions from indexes
     // alone. Its key starts with the revocation time, so a batch of logouts
     // appends to its last page instead of dirtying a page each.
     R"sql(
ALTER TABLE sessions ADD COLUMN revoked_at INTEGER;
CREATE INDEX sessions_revoked ON sessions(revoked_at, expires_at) WHERE revoked_at IS NOT NULL;
)sql",
     // PostgreSQL: the column only. It never sets it yet, and building an
     // index here would hold the ALTER's lock on sessions while it scans the
     // table, stalling the previous release's instances; a later release that
     // marks adds it with CREATE INDEX CONCURRENTLY.
     "ALTER TABLE sessions ADD COLUMN revoked_at BIGINT;"},
    // The kinds of password hashes stored (algorithm and parameters, never a
    // salt or digest: crypto/hash_kind.hpp), which the login floor follows
    // (interface.md 10.5). From now on the store adds a kind whenever it
    // writes a hash; this fills the set from the hashes already there. Each
    // dialect takes the prefix "$argon2X$v=N$m=N,t=N,p=N" of a string that
    // has a salt after it, as password_hash_kind() does (SQLite has no
    // regular expressions: the fields are cut at their '$' and checked).
    {3, "password_hash_kinds: the kinds of stored password hashes, for the login floor", R"sql(
CREATE TABLE password_hash_kinds (kind TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT OR IGNORE INTO password_hash_kinds (kind)
WITH a AS (
  SELECT password_hash AS h, 1 + instr(substr(password_hash, 2), '$') AS d2
  FROM users WHERE substr(password_hash, 1, 7) = '$argon2'),
b AS (SELECT h, d2, d2 + instr(substr(h, d2 + 1), '$') AS d3 FROM a WHERE d2 > 1),
c AS (SELECT h, d2, d3, d3 + instr(substr(h, d3 + 1), '$') AS d4 FROM b WHERE d3 > d2),
f AS (SELECT substr(h, 1, d4 - 1) AS kind, substr(h, 2, d2 - 2) AS alg,
             substr(h, d2 + 1, d3 - d2 - 1) AS v, substr(h, d3 + 1, d4 - d3 - 1) AS params
      FROM c WHERE d4 > d3)
SELECT DISTINCT kind FROM f
WHERE alg IN ('argon2id', 'argon2i', 'argon2d')
  AND v GLOB 'v=[0-9]*' AND length(v) <= 12 AND substr(v, 3) NOT GLOB '*[^0-9]*'
  AND params GLOB 'm=[0-9]*,t=[0-9]*,p=[0-9]*' AND params NOT GLOB '*[^0-9mtp=,]*'
  AND length(params) - length(replace(params, ',', '')) = 2
  AND length(params) - length(replace(params, '=', '')) = 3
  AND length(params) - length(replace(replace(replace(params, 'm', ''), 't', ''), 'p', '')) = 3;
)sql",
     R"sql(
CREATE TABLE password_hash_kinds (kind TEXT PRIMARY KEY);
INSERT INTO password_hash_kinds (kind)
SELECT DISTINCT substring(password_hash FROM
  '^\$argon2(?:id|i|d)\$v=[0-9]{1,10}\$m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,10}(?=\$)')
FROM users
WHERE password_hash ~ '^\$argon2(?:id|i|d)\$v=[0-9]{1,10}\$m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,10}\$'
ON CONFLICT (kind) DO NOTHING;
)sql"},
    // GET /sessions (interface.md 11.2): each session gets a public id, a
    // random UUID (version 4) that is not derived from its token, and where
    // its login came from. Sessions already there get ids here; their
    // origin stays null (not recorded). No index on public_id: a public id
    // is only ever looked up among one user's sessions (sessions_by_user),
    // and an index would cost every login one more page write.
    {4, "sessions.public_id, client_address, user_agent: the caller's own sessions, listed",
     // SQLite: one instance at a time, which from this release on always
     // writes an id; existing rows get theirs from randomblob().
     R"sql(
ALTER TABLE sessions ADD COLUMN public_id TEXT;
ALTER TABLE sessions ADD COLUMN client_address TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
UPDATE sessions SET public_id =
  lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
  substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (random() & 3), 1) ||
  substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)));
)sql",
     // PostgreSQL: during a rolling upgrade, instances of the previous
     // release keep inserting sessions without the new columns. The id's
     // default gives each such row (and, as the volatile default rewrites
     // the table under the ALTER's lock, each existing row) an id of its
     // own; its origin is null. The rewrite holds the sessions table for
     // as long as copying it takes (docs/guide/operations.md, upgrades).
     R"sql(
ALTER TABLE sessions ADD COLUMN public_id TEXT NOT NULL DEFAULT gen_random_uuid()::text;
ALTER TABLE sessions ADD COLUMN client_address TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
)sql"},
    // Self-service sign-up (interface.md 11.4-11.5): the outbox carries a
    // sign-up's chosen password hash and display name until its mail is
    // sent (nullable columns: no table rewrite, and reset mails leave them
    // null); the pending sign-up, one per address, waits in its own table
    // under its token's digest. Instances of the previous release ignore
    // the new columns, but they would treat a sign-up mail as a reset
    // request: open sign-up only once every instance runs this release.
    {5, "signups: pending sign-ups, and the outbox columns that carry them", R"sql(
ALTER TABLE outbox ADD COLUMN password_hash TEXT;
ALTER TABLE outbox ADD COLUMN display_name TEXT;
CREATE TABLE signups (
  token_digest  BLOB PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  display_name  TEXT,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX signups_by_expiry ON signups(expires_at);
)sql",
     R"sql(
ALTER TABLE outbox ADD COLUMN password_hash TEXT;
ALTER TABLE outbox ADD COLUMN display_name TEXT;
CREATE TABLE signups (
  token_digest  BYTEA PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  display_name  TEXT,
  created_at    BIGINT NOT NULL,
  expires_at    BIGINT NOT NULL
);
CREATE INDEX signups_by_expiry ON signups(expires_at);
)sql"},
    // The admin API (interface.md 10): operators' keys, kept as digests
    // under a unique name; the last login of each account, which the admin
    // view shows; and an index on the sessions' public ids, which the admin
    // route DELETE /admin/sessions/{id} looks up across all users (without
    // it, that lookup would scan every session while holding the writer).
    {6, "admin_keys, users.last_login_at, sessions by public id: the admin API", R"sql(
ALTER TABLE users ADD COLUMN last_login_at INTEGER;
CREATE TABLE admin_keys (
  name         TEXT PRIMARY KEY,
  key_digest   BLOB NOT NULL UNIQUE,
  scope        TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER
) WITHOUT ROWID;
CREATE INDEX sessions_by_public_id ON sessions(public_id);
)sql",
     R"sql(
ALTER TABLE users ADD COLUMN last_login_at BIGINT;
CREATE TABLE admin_keys (
  name         TEXT PRIMARY KEY,
  key_digest   BYTEA NOT NULL UNIQUE,
  scope        TEXT NOT NULL,
  created_at   BIGINT NOT NULL,
  last_used_at BIGINT
);
CREATE INDEX sessions_by_public_id ON sessions(public_id);
CREATE INDEX users_by_id_bytes ON users (id COLLATE "C");
)sql"},
    // Second factors (interface.md 12): one TOTP factor per account, its
    // secret sealed with a key kept outside the database (never in clear);
    // confirmed_at NULL while pending; last_step the newest time step
    // accepted, so that no step is accepted twice. Recovery codes only as
    // digests, one row each, deleted when used.
    {7, "totp_factors, recovery_codes: the second factor", R"sql(
CREATE TABLE totp_factors (
  user_id       TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  sealed_secret TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  confirmed_at  INTEGER,
  last_step     INTEGER NOT NULL DEFAULT -1
) WITHOUT ROWID;
CREATE TABLE recovery_codes (
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_digest BLOB NOT NULL,
  PRIMARY KEY (user_id, code_digest)
) WITHOUT ROWID;
)sql",
     R"sql(
CREATE TABLE totp_factors (
  user_id       TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  sealed_secret TEXT NOT NULL,
  created_at    BIGINT NOT NULL,
  confirmed_at  BIGINT,
  last_step     BIGINT NOT NULL DEFAULT -1
);
CREATE TABLE recovery_codes (
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_digest BYTEA NOT NULL,
  PRIMARY KEY (user_id, code_digest)
);
)sql"},
    // The audit trail and webhooks (interface.md 14): one row per event,
    // written in the transaction of the change it records; `seq` orders
    // them (newest first in GET /admin/events, and its cursor). No foreign
    // key to users: an erased account's events stay until pruned. A
    // webhook delivery is queued in the same transaction, one row per
    // event, while webhooks are configured; delivered or dead rows stay
    // until their event is pruned.
    //
    // On SQLite the trail's indexes by account and by type are tables of
    // their own, filled by a background pass in bulk (once a second, in
    // key order) rather than as each event is written, so that a logout's
    // commit writes no random index page. `events_index.through` is the
    // last seq indexed; newer events are found by walking seq
    // (sqlite/events.cpp).
    {8, "events, webhook_deliveries: the audit trail and webhooks", R"sql(
CREATE TABLE events (
  seq            INTEGER PRIMARY KEY,
  id             TEXT NOT NULL,
  at             INTEGER NOT NULL,
  type           TEXT NOT NULL,
  user_id        TEXT,
  actor          TEXT NOT NULL,
  client_address TEXT,
  user_agent     TEXT,
  request_id     TEXT,
  detail         TEXT NOT NULL
);
CREATE TABLE events_by_user (
  user_id TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  PRIMARY KEY (user_id, seq)
) WITHOUT ROWID;
CREATE TABLE events_by_type (
  type TEXT NOT NULL,
  seq  INTEGER NOT NULL,
  PRIMARY KEY (type, seq)
) WITHOUT ROWID;
CREATE TABLE events_index (through INTEGER NOT NULL);
INSERT INTO events_index (through) VALUES (0);
CREATE TABLE webhook_deliveries (
  event_seq       INTEGER PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  claimed_until   INTEGER,
  delivered_at    INTEGER,
  dead_at         INTEGER,
  last_error      TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at)
  WHERE delivered_at IS NULL AND dead_at IS NULL;
)sql",
     R"sql(
CREATE TABLE events (
  seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id             TEXT NOT NULL,
  at             BIGINT NOT NULL,
  type           TEXT NOT NULL,
  user_id        TEXT,
  actor          TEXT NOT NULL,
  client_address TEXT,
  user_agent     TEXT,
  request_id     TEXT,
  detail         TEXT NOT NULL
);
CREATE INDEX events_by_user ON events(user_id, seq);
CREATE INDEX events_by_type ON events(type, seq);
CREATE TABLE webhook_deliveries (
  event_seq       BIGINT PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  claimed_until   BIGINT,
  delivered_at    BIGINT,
  dead_at         BIGINT,
  last_error      TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at)
  WHERE delivered_at IS NULL AND dead_at IS NULL;
)sql"},
    // Passkeys (interface.md 16): each credential's public key and counter
    // (nothing that can sign), ids and keys as base64url text; the
    // challenges issued for them only as digests, each for one purpose
    // (1 registration, with its account; 2 sign-in, without), until used
    // or expired.
    {9, "passkeys, webauthn_challenges: passkeys", R"sql(
CREATE TABLE passkeys (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  algorithm    INTEGER NOT NULL,
  public_key   TEXT NOT NULL,
  sign_count   INTEGER NOT NULL,
  backed_up    INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER
) WITHOUT ROWID;
CREATE INDEX passkeys_by_user ON passkeys(user_id, created_at);
CREATE TABLE webauthn_challenges (
  digest     BLOB PRIMARY KEY,
  purpose    INTEGER NOT NULL,
  user_id    TEXT REFERENCES users(id) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges(expires_at);
)sql",
     R"sql(
CREATE TABLE passkeys (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  algorithm    INTEGER NOT NULL,
  public_key   TEXT NOT NULL,
  sign_count   BIGINT NOT NULL,
  backed_up    BOOLEAN NOT NULL,
  created_at   BIGINT NOT NULL,
  last_used_at BIGINT
);
CREATE INDEX passkeys_by_user ON passkeys(user_id, created_at);
CREATE TABLE webauthn_challenges (
  digest     BYTEA PRIMARY KEY,
  purpose    INTEGER NOT NULL,
  user_id    TEXT REFERENCES users(id) ON DELETE CASCADE,
  expires_at BIGINT NOT NULL
);
CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges(expires_at);
)sql"},
};

}  // namespace

std::span<const Migration> migrations() {
  // The list is long: its later entries are in migrations_10_on.cpp,
  // migrations_17_on.cpp and migrations_18_on.cpp.
  static const std::vector<Migration> all = [] {
    std::vector<Migration> list(std::begin(kFirstMigrations), std::end(kFirstMigrations));
    for (const Migration& m : migrations_from_10()) list.push_back(m);
    for (const Migration& m : migrations_from_17()) list.push_back(m);
    for (const Migration& m : migrations_from_18()) list.push_back(m);
    return list;
  }();
  return all;
}

void log_applied(std::span<const Migration* const> applied) {
  for (const Migration* m : applied)
    log::info("migration_applied", {{"version", m->version}, {"description", m->description}});
}

}  // namespace authd
