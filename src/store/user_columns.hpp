// The users table's columns as both backends read and write them, and the
// one reading of a row into a UserRecord: a column added to users is added
// here once.
#pragma once

#include "store/records.hpp"

// Macros so that they concatenate into string literals: both backends'
// connections cache statements by the literal's address.
#define AUTHD_USER_COLUMNS                                                        \
  "id, email, password_hash, phone, photo_url, display_name, email_verified_at, " \
  "phone_verified_at, disabled, created_at, updated_at, last_login_at"

// GET /me's and logout's lookup: the session's user, then its expiry. The
// subquery names only user_id and expires_at, so the user's columns need no
// qualifier; the session's primary key drives the join. `DIGEST` is the
// backend's spelling of the first parameter ("?1", "$1").
#define AUTHD_SESSION_USER_SQL(DIGEST)                                      \
  "SELECT " AUTHD_USER_COLUMNS                                              \
  ", expires_at FROM users JOIN (SELECT user_id, expires_at FROM sessions " \
  "WHERE token_digest = " DIGEST " AND revoked_at IS NULL) AS s ON users.id = s.user_id"

namespace authd {

inline constexpr int kUserColumnCount = 12;
inline constexpr int kSessionExpiresColumn = kUserColumnCount;  // AUTHD_SESSION_USER_SQL

// `row` reads one result row by column index: text, optional_text, integer,
// optional_integer and boolean (sqlite::Statement, postgres::Row).
template <class Row>
UserRecord read_user(const Row& row) {
  UserRecord user;
  user.id = row.text(0);
  user.email = row.text(1);
  user.password_hash = row.optional_text(2);
  user.phone = row.optional_text(3);
  user.photo_url = row.optional_text(4);
  user.display_name = row.optional_text(5);
  user.email_verified_at = row.optional_integer(6);
  user.phone_verified_at = row.optional_integer(7);
  user.disabled = row.boolean(8);
  user.created_at = row.integer(9);
  user.updated_at = row.integer(10);
  user.last_login_at = row.optional_integer(11);
  return user;
}

}  // namespace authd
