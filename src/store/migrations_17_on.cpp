// Migrations 17 and later, in the order of store/migrations.hpp (1 to 9
// are in migrations.cpp, 10 to 16 in migrations_10_on.cpp).
#include "store/migrations.hpp"

namespace authd {
namespace {

constexpr Migration kMigrationsFrom17[] = {
    // Upstream identity providers (interface.md 18.3): each link of a
    // provider's account (its configured name and subject) to one authd
    // account, named in public by a random UUID; the e-mail the provider
    // gave at link time, for the owner's list. A (provider, subject) links
    // one account at most; erasing the account takes its links.
    {17, "identities: links from upstream identity providers' accounts", R"sql(
CREATE TABLE identities (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  provider     TEXT NOT NULL,
  subject      TEXT NOT NULL,
  email        TEXT,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  UNIQUE (provider, subject)
) WITHOUT ROWID;
CREATE INDEX identities_by_user ON identities(user_id, created_at);
)sql",
     R"sql(
CREATE TABLE identities (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  provider     TEXT NOT NULL,
  subject      TEXT NOT NULL,
  email        TEXT,
  created_at   BIGINT NOT NULL,
  last_used_at BIGINT,
  UNIQUE (provider, subject)
);
CREATE INDEX identities_by_user ON identities(user_id, created_at);
)sql"},
};

}  // namespace

std::span<const Migration> migrations_from_17() { return kMigrationsFrom17; }

}  // namespace authd
