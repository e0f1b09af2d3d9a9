// Migrations 13 and later, in the order of store/migrations.hpp (the first
// twelve are in migrations.cpp). Times are integer milliseconds since the
// Unix epoch (UTC) in both dialects; digests are raw SHA-256 bytes (BLOB,
// BYTEA).
#include "store/migrations.hpp"

namespace authd {
namespace {

constexpr Migration kMigrations[] = {
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
)sql"},
};

}  // namespace

std::span<const Migration> migrations_from_13() { return kMigrations; }

}  // namespace authd
