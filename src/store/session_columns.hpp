// The sessions table's columns as both backends read them, and the one
// reading of a row into a SessionRecord (GET /sessions): a column added to
// sessions is added here once.
#pragma once

#include "store/records.hpp"

// A macro so that it concatenates into string literals: both backends'
// connections cache statements by the literal's address.
#define AUTHD_SESSION_COLUMNS \
  "token_digest, user_id, created_at, expires_at, public_id, client_address, user_agent, amr"

namespace authd {

// `row` reads one result row by column index (sqlite::Statement, postgres::Row).
template <class Row>
SessionRecord read_session(const Row& row) {
  SessionRecord session;
  session.token_digest = row.digest(0);
  session.user_id = row.text(1);
  session.created_at = row.integer(2);
  session.expires_at = row.integer(3);
  session.public_id = row.optional_text(4).value_or("");
  session.client_address = row.optional_text(5);
  session.user_agent = row.optional_text(6);
  session.amr = row.optional_text(7).value_or("");
  return session;
}

}  // namespace authd
