// Migrations 18 and later; migrations() lists them after those of
// migrations_17_on.cpp.
#include <iterator>

#include "store/migrations.hpp"

namespace authd {
namespace {

const Migration kMigrationsFrom18[] = {
    // Sign-in through upstream providers (interface.md 18.2): the flows
    // waiting for their callback, as digests only (store/areas/upstream_flows.hpp).
    {18, "upstream_flows: sign-ins and links through upstream providers",
     R"sql(
CREATE TABLE upstream_flows (
  state_digest  BLOB PRIMARY KEY,
  binder_digest BLOB NOT NULL,
  provider      TEXT NOT NULL,
  purpose       TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  request_id    TEXT NOT NULL,
  return_path   TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  used_at       INTEGER
) WITHOUT ROWID;
CREATE INDEX upstream_flows_by_expiry ON upstream_flows(expires_at);
)sql",
     R"sql(
CREATE TABLE upstream_flows (
  state_digest  BYTEA PRIMARY KEY,
  binder_digest BYTEA NOT NULL,
  provider      TEXT NOT NULL,
  purpose       TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  request_id    TEXT NOT NULL,
  return_path   TEXT NOT NULL,
  created_at    BIGINT NOT NULL,
  expires_at    BIGINT NOT NULL,
  used_at       BIGINT
);
CREATE INDEX upstream_flows_by_expiry ON upstream_flows(expires_at);
)sql"},
    // The operator's console (interface.md 21.2): the accounts granted it,
    // with their scope and who granted it, and the console sessions, each
    // token kept only as its digest, ending when idle (idle_until, moved at
    // each use) or at an absolute end. Tables of their own, not rows of
    // `sessions`: a console session is never a bearer token of the public
    // API, nor a user session one of the console.
    {19, "operators, console_sessions: the operator's console",
     R"sql(
CREATE TABLE operators (
  user_id    TEXT PRIMARY KEY REFERENCES users(id),
  scope      TEXT NOT NULL CHECK (scope IN ('read', 'write')),
  granted_at INTEGER NOT NULL,
  granted_by TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE console_sessions (
  token_digest BLOB PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id),
  created_at   INTEGER NOT NULL,
  idle_until   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_by_user ON console_sessions(user_id);
CREATE INDEX console_sessions_by_idle ON console_sessions(idle_until);
)sql",
     R"sql(
CREATE TABLE operators (
  user_id    TEXT PRIMARY KEY REFERENCES users(id),
  scope      TEXT NOT NULL CHECK (scope IN ('read', 'write')),
  granted_at BIGINT NOT NULL,
  granted_by TEXT NOT NULL
);
CREATE TABLE console_sessions (
  token_digest BYTEA PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id),
  created_at   BIGINT NOT NULL,
  idle_until   BIGINT NOT NULL,
  expires_at   BIGINT NOT NULL
);
CREATE INDEX console_sessions_by_user ON console_sessions(user_id);
CREATE INDEX console_sessions_by_idle ON console_sessions(idle_until);
)sql"},
    // An upstream sign-in of an account with a second factor waits for it
    // (interface.md 18.2.5): the account, the end of the wait and the wrong
    // tries, on the flow's row, found by the binder's digest.
    {20, "upstream_flows: the wait for the second factor",
     R"sql(
ALTER TABLE upstream_flows ADD COLUMN awaiting_user_id TEXT;
ALTER TABLE upstream_flows ADD COLUMN awaiting_until INTEGER;
ALTER TABLE upstream_flows ADD COLUMN wrong_tries INTEGER NOT NULL DEFAULT 0;
CREATE INDEX upstream_flows_awaiting ON upstream_flows(binder_digest)
  WHERE awaiting_user_id IS NOT NULL;
)sql",
     R"sql(
ALTER TABLE upstream_flows ADD COLUMN awaiting_user_id TEXT;
ALTER TABLE upstream_flows ADD COLUMN awaiting_until BIGINT;
ALTER TABLE upstream_flows ADD COLUMN wrong_tries INTEGER NOT NULL DEFAULT 0;
CREATE INDEX upstream_flows_awaiting ON upstream_flows(binder_digest)
  WHERE awaiting_user_id IS NOT NULL;
)sql"},
    // An upstream provider's tokens kept on its link (interface.md 18.5),
    // for a provider configured with keep-tokens: one text sealed as the
    // TOTP secrets are (12.2), never the tokens in clear. In the link's
    // row, so that whatever removes the link (an unlink, an erasure)
    // removes them.
    {21, "identities: the upstream tokens kept on a link, sealed",
     R"sql(
ALTER TABLE identities ADD COLUMN kept_tokens TEXT;
ALTER TABLE identities ADD COLUMN tokens_kept_at INTEGER;
)sql",
     R"sql(
ALTER TABLE identities ADD COLUMN kept_tokens TEXT;
ALTER TABLE identities ADD COLUMN tokens_kept_at BIGINT;
)sql"},
};

}  // namespace

std::span<const Migration> migrations_from_18() { return kMigrationsFrom18; }

}  // namespace authd
