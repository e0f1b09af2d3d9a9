// Migrations 18 and later; migrations() lists them after those of
// migrations_10_on.cpp.
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
};

}  // namespace

std::span<const Migration> migrations_from_18() { return kMigrationsFrom18; }

}  // namespace authd
