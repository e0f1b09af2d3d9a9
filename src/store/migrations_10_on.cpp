// Migrations 10 and later, in the order of store/migrations.hpp (the first
// nine are in migrations.cpp). Times are integer milliseconds since the
// Unix epoch (UTC) in both dialects; digests are raw SHA-256 bytes (BLOB,
// BYTEA).
#include "store/migrations.hpp"

namespace authd {
namespace {

constexpr Migration kMigrations[] = {
    // Sign-up pre-hijacking (interface.md 11.5): a sign-up mail says from
    // which client address it was asked for; the sign-up requests that
    // still hold a password hash (unsent sign-up mails, and the requests
    // past the mail limit, recorded as handled rows) are found by address
    // through a partial index that reset mails, the bulk of the outbox, are
    // not in; a pending sign-up names the request whose password it holds.
    // Nullable or defaulted columns: no table rewrite; instances of the
    // previous release ignore them.
    {10, "outbox.client_address, signups.request_id, sign-up requests by address",
     R"sql(
ALTER TABLE outbox ADD COLUMN client_address TEXT;
ALTER TABLE signups ADD COLUMN request_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX outbox_signup_requests ON outbox(email, id) WHERE password_hash IS NOT NULL;
)sql",
     R"sql(
ALTER TABLE outbox ADD COLUMN client_address TEXT;
ALTER TABLE signups ADD COLUMN request_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX outbox_signup_requests ON outbox(email, id) WHERE password_hash IS NOT NULL;
)sql"},
    // Each kind of stored hash keeps its last measured cost (interface.md
    // 10.5): its cost relative to the server's own argon2id, in thousandths
    // (an integer on both backends), and that own
    // kind (the basis: a cost measured against other parameters is measured
    // again). A start then begins with the stored costs instead of waiting
    // for measurements. Nullable columns: no table rewrite, and instances
    // of the previous release, which insert only the kind, stay correct.
    {11, "password_hash_kinds.relative_cost_milli, cost_basis: the last measured cost of each kind",
     R"sql(
ALTER TABLE password_hash_kinds ADD COLUMN relative_cost_milli INTEGER;
ALTER TABLE password_hash_kinds ADD COLUMN cost_basis TEXT;
)sql",
     R"sql(
ALTER TABLE password_hash_kinds ADD COLUMN relative_cost_milli BIGINT;
ALTER TABLE password_hash_kinds ADD COLUMN cost_basis TEXT;
)sql"},
    // Webhooks decided by the database, and throttled events counted
    // (interface.md 14.1, 14.4): `webhook_config.delivering`, one row, set
    // by `authd serve` from its --webhook-url and read by every writer of
    // an event (the CLI's too), says whether an event queues its delivery;
    // `event_repeats` names each throttle key's open login.failed event
    // until its window closes, so that later 429s count in it.
    {12, "webhook_config, event_repeats: webhooks for every writer, throttled events counted",
     R"sql(
CREATE TABLE webhook_config (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  delivering INTEGER NOT NULL
);
INSERT INTO webhook_config (id, delivering) VALUES (1, 0);
CREATE TABLE event_repeats (
  key       TEXT PRIMARY KEY,
  event_seq INTEGER NOT NULL,
  until     INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
     R"sql(
CREATE TABLE webhook_config (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  delivering BOOLEAN NOT NULL
);
INSERT INTO webhook_config (id, delivering) VALUES (1, false);
CREATE TABLE event_repeats (
  key       TEXT PRIMARY KEY,
  event_seq BIGINT NOT NULL,
  until     BIGINT NOT NULL
);
)sql"},
    // Passwordless sign-in by mail (interface.md 19.2): the live sign-in
    // mail of an account, at most one per account and one per address, as
    // the digests of its link's token and of its code, with its count of
    // wrong codes. A new table: instances of the previous release ignore it.
    {13, "email_signins: the live sign-in mail of each account", R"sql(
CREATE TABLE email_signins (
  token_digest BLOB PRIMARY KEY,
  code_digest  BLOB NOT NULL,
  user_id      TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  email        TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  wrong_codes  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX email_signins_by_expiry ON email_signins(expires_at);
)sql",
     R"sql(
CREATE TABLE email_signins (
  token_digest BYTEA PRIMARY KEY,
  code_digest  BYTEA NOT NULL,
  user_id      TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  email        TEXT NOT NULL UNIQUE,
  created_at   BIGINT NOT NULL,
  expires_at   BIGINT NOT NULL,
  wrong_codes  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX email_signins_by_expiry ON email_signins(expires_at);
)sql"},  // The OpenID provider (interface.md 17): registered clients (17.3), the
    // authorization requests that wait for a sign-in (17.5), codes (17.6),
    // opaque access tokens (17.9), consents (17.5) and the signing keys
    // every instance shares (17.12). Secrets as their digests only; lists
    // as JSON arrays. No cascade from users or clients: erasure (10.4.13)
    // and OAuthClientStore::remove delete the rows that name them, and the
    // foreign keys refuse a deletion that forgot one. New tables: instances
    // of the previous release ignore them.
    {14,
     "oauth_clients, oauth_authorization_requests, oauth_codes, oauth_access_tokens, "
     "oauth_consents, oidc_signing_keys: the OpenID provider",
     R"sql(
CREATE TABLE oauth_clients (
  id                        TEXT PRIMARY KEY,
  name                      TEXT NOT NULL,
  confidential              INTEGER NOT NULL,
  secret_digest             BLOB,
  previous_secret_digest    BLOB,
  previous_secret_until     INTEGER,
  redirect_uris             TEXT NOT NULL,
  post_logout_redirect_uris TEXT NOT NULL,
  grant_types               TEXT NOT NULL,
  scopes                    TEXT NOT NULL,
  first_party               INTEGER NOT NULL,
  access_token_format       TEXT NOT NULL,
  id_token_alg              TEXT NOT NULL,
  introspection             INTEGER NOT NULL,
  created_at                INTEGER NOT NULL,
  updated_at                INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE oauth_authorization_requests (
  id_digest  BLOB PRIMARY KEY,
  client_id  TEXT NOT NULL REFERENCES oauth_clients(id),
  parameters TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_authorization_requests_by_client ON oauth_authorization_requests(client_id);
CREATE INDEX oauth_authorization_requests_by_expiry ON oauth_authorization_requests(expires_at);
CREATE TABLE oauth_codes (
  code_digest       BLOB PRIMARY KEY,
  client_id         TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id           TEXT NOT NULL REFERENCES users(id),
  redirect_uri      TEXT NOT NULL,
  scope             TEXT NOT NULL,
  nonce             TEXT NOT NULL,
  code_challenge    TEXT NOT NULL,
  session_digest    BLOB NOT NULL,
  session_public_id TEXT NOT NULL,
  auth_time         INTEGER NOT NULL,
  amr               TEXT NOT NULL,
  created_at        INTEGER NOT NULL,
  expires_at        INTEGER NOT NULL,
  used_at           INTEGER,
  keep_until        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_codes_by_user ON oauth_codes(user_id);
CREATE INDEX oauth_codes_by_client ON oauth_codes(client_id);
CREATE INDEX oauth_codes_by_keep_until ON oauth_codes(keep_until);
CREATE TABLE oauth_access_tokens (
  token_digest      BLOB PRIMARY KEY,
  client_id         TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id           TEXT NOT NULL REFERENCES users(id),
  scope             TEXT NOT NULL,
  grant_digest      BLOB NOT NULL,
  session_public_id TEXT NOT NULL,
  created_at        INTEGER NOT NULL,
  expires_at        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_access_tokens_by_grant ON oauth_access_tokens(grant_digest);
CREATE INDEX oauth_access_tokens_by_user ON oauth_access_tokens(user_id, client_id);
CREATE INDEX oauth_access_tokens_by_client ON oauth_access_tokens(client_id);
CREATE INDEX oauth_access_tokens_by_expiry ON oauth_access_tokens(expires_at);
CREATE TABLE oauth_consents (
  user_id    TEXT NOT NULL REFERENCES users(id),
  client_id  TEXT NOT NULL REFERENCES oauth_clients(id),
  scopes     TEXT NOT NULL,
  granted_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, client_id)
) WITHOUT ROWID;
CREATE INDEX oauth_consents_by_client ON oauth_consents(client_id);
CREATE TABLE oidc_signing_keys (
  kid            TEXT PRIMARY KEY,
  alg            TEXT NOT NULL,
  generation     INTEGER NOT NULL,
  public_jwk     TEXT NOT NULL,
  sealed_private TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  signs_from     INTEGER NOT NULL,
  retired_at     INTEGER,
  remove_after   INTEGER,
  UNIQUE (alg, generation)
) WITHOUT ROWID;
)sql",
     R"sql(
CREATE TABLE oauth_clients (
  id                        TEXT PRIMARY KEY,
  name                      TEXT NOT NULL,
  confidential              BOOLEAN NOT NULL,
  secret_digest             BYTEA,
  previous_secret_digest    BYTEA,
  previous_secret_until     BIGINT,
  redirect_uris             TEXT NOT NULL,
  post_logout_redirect_uris TEXT NOT NULL,
  grant_types               TEXT NOT NULL,
  scopes                    TEXT NOT NULL,
  first_party               BOOLEAN NOT NULL,
  access_token_format       TEXT NOT NULL,
  id_token_alg              TEXT NOT NULL,
  introspection             BOOLEAN NOT NULL,
  created_at                BIGINT NOT NULL,
  updated_at                BIGINT NOT NULL
);
CREATE TABLE oauth_authorization_requests (
  id_digest  BYTEA PRIMARY KEY,
  client_id  TEXT NOT NULL REFERENCES oauth_clients(id),
  parameters TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX oauth_authorization_requests_by_client ON oauth_authorization_requests(client_id);
CREATE INDEX oauth_authorization_requests_by_expiry ON oauth_authorization_requests(expires_at);
CREATE TABLE oauth_codes (
  code_digest       BYTEA PRIMARY KEY,
  client_id         TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id           TEXT NOT NULL REFERENCES users(id),
  redirect_uri      TEXT NOT NULL,
  scope             TEXT NOT NULL,
  nonce             TEXT NOT NULL,
  code_challenge    TEXT NOT NULL,
  session_digest    BYTEA NOT NULL,
  session_public_id TEXT NOT NULL,
  auth_time         BIGINT NOT NULL,
  amr               TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  expires_at        BIGINT NOT NULL,
  used_at           BIGINT,
  keep_until        BIGINT NOT NULL
);
CREATE INDEX oauth_codes_by_user ON oauth_codes(user_id);
CREATE INDEX oauth_codes_by_client ON oauth_codes(client_id);
CREATE INDEX oauth_codes_by_keep_until ON oauth_codes(keep_until);
CREATE TABLE oauth_access_tokens (
  token_digest      BYTEA PRIMARY KEY,
  client_id         TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id           TEXT NOT NULL REFERENCES users(id),
  scope             TEXT NOT NULL,
  grant_digest      BYTEA NOT NULL,
  session_public_id TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  expires_at        BIGINT NOT NULL
);
CREATE INDEX oauth_access_tokens_by_grant ON oauth_access_tokens(grant_digest);
CREATE INDEX oauth_access_tokens_by_user ON oauth_access_tokens(user_id, client_id);
CREATE INDEX oauth_access_tokens_by_client ON oauth_access_tokens(client_id);
CREATE INDEX oauth_access_tokens_by_expiry ON oauth_access_tokens(expires_at);
CREATE TABLE oauth_consents (
  user_id    TEXT NOT NULL REFERENCES users(id),
  client_id  TEXT NOT NULL REFERENCES oauth_clients(id),
  scopes     TEXT NOT NULL,
  granted_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (user_id, client_id)
);
CREATE INDEX oauth_consents_by_client ON oauth_consents(client_id);
CREATE TABLE oidc_signing_keys (
  kid            TEXT PRIMARY KEY,
  alg            TEXT NOT NULL,
  generation     BIGINT NOT NULL,
  public_jwk     TEXT NOT NULL,
  sealed_private TEXT NOT NULL,
  created_at     BIGINT NOT NULL,
  signs_from     BIGINT NOT NULL,
  retired_at     BIGINT,
  remove_after   BIGINT,
  UNIQUE (alg, generation)
);
)sql"},
    // How a session signed in (interface.md 17.8: the ID token's amr). A
    // nullable column: instances of the previous release insert without it.
    {15, "sessions.amr: how each session signed in", "ALTER TABLE sessions ADD COLUMN amr TEXT;",
     "ALTER TABLE sessions ADD COLUMN amr TEXT;"},
    // The token lifecycle (interface.md 17.9-17.11): refresh tokens (17.10),
    // rotated on every use, a family being every token rotated from one
    // authorization code (family_digest: that code's digest, so that a
    // reused code revokes the family too); access tokens of the
    // client_credentials grant, which have no user (17.7); and the resource
    // (RFC 8707) a code and an access token were issued for, NULL for the issuer, so
    // that instances of the previous release still insert. A rotated refresh
    // token's row stays, used_at set, until its family's absolute end, so
    // that presenting it again is recognised as a reuse.
    {16,
     "oauth_refresh_tokens, oauth_client_tokens, the resource of codes and access tokens: "
     "the token lifecycle",
     R"sql(
CREATE TABLE oauth_refresh_tokens (
  token_digest      BLOB PRIMARY KEY,
  family_digest     BLOB NOT NULL,
  client_id         TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id           TEXT NOT NULL REFERENCES users(id),
  scope             TEXT NOT NULL,
  resource          TEXT,
  session_public_id TEXT NOT NULL,
  auth_time         INTEGER NOT NULL,
  amr               TEXT NOT NULL,
  created_at        INTEGER NOT NULL,
  expires_at        INTEGER NOT NULL,
  family_expires_at INTEGER NOT NULL,
  used_at           INTEGER
) WITHOUT ROWID;
CREATE INDEX oauth_refresh_tokens_by_family ON oauth_refresh_tokens(family_digest);
CREATE INDEX oauth_refresh_tokens_by_user ON oauth_refresh_tokens(user_id, client_id);
CREATE INDEX oauth_refresh_tokens_by_client ON oauth_refresh_tokens(client_id);
CREATE INDEX oauth_refresh_tokens_by_family_expiry ON oauth_refresh_tokens(family_expires_at);
CREATE TABLE oauth_client_tokens (
  token_digest BLOB PRIMARY KEY,
  client_id    TEXT NOT NULL REFERENCES oauth_clients(id),
  scope        TEXT NOT NULL,
  resource     TEXT,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_client_tokens_by_client ON oauth_client_tokens(client_id);
CREATE INDEX oauth_client_tokens_by_expiry ON oauth_client_tokens(expires_at);
ALTER TABLE oauth_access_tokens ADD COLUMN resource TEXT;
ALTER TABLE oauth_codes ADD COLUMN resource TEXT;
)sql",
     R"sql(
CREATE TABLE oauth_refresh_tokens (
  token_digest      BYTEA PRIMARY KEY,
  family_digest     BYTEA NOT NULL,
  client_id         TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id           TEXT NOT NULL REFERENCES users(id),
  scope             TEXT NOT NULL,
  resource          TEXT,
  session_public_id TEXT NOT NULL,
  auth_time         BIGINT NOT NULL,
  amr               TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  expires_at        BIGINT NOT NULL,
  family_expires_at BIGINT NOT NULL,
  used_at           BIGINT
);
CREATE INDEX oauth_refresh_tokens_by_family ON oauth_refresh_tokens(family_digest);
CREATE INDEX oauth_refresh_tokens_by_user ON oauth_refresh_tokens(user_id, client_id);
CREATE INDEX oauth_refresh_tokens_by_client ON oauth_refresh_tokens(client_id);
CREATE INDEX oauth_refresh_tokens_by_family_expiry ON oauth_refresh_tokens(family_expires_at);
CREATE TABLE oauth_client_tokens (
  token_digest BYTEA PRIMARY KEY,
  client_id    TEXT NOT NULL REFERENCES oauth_clients(id),
  scope        TEXT NOT NULL,
  resource     TEXT,
  created_at   BIGINT NOT NULL,
  expires_at   BIGINT NOT NULL
);
CREATE INDEX oauth_client_tokens_by_client ON oauth_client_tokens(client_id);
CREATE INDEX oauth_client_tokens_by_expiry ON oauth_client_tokens(expires_at);
ALTER TABLE oauth_access_tokens ADD COLUMN resource TEXT;
ALTER TABLE oauth_codes ADD COLUMN resource TEXT;
)sql"},
};

}  // namespace

std::span<const Migration> migrations_from_10() { return kMigrations; }

}  // namespace authd
