// The outbox's columns as both backends read them, and the reading of one
// row into an OutboxRecord (sqlite::Statement or postgres::Row).
#pragma once

#include "store/records.hpp"

#define AUTHD_OUTBOX_COLUMNS                                                                       \
  "id, kind, user_id, email, created_at, attempts, next_attempt_at, password_hash, display_name, " \
  "client_address"

namespace authd {

template <class Row>
OutboxRecord read_outbox_record(const Row& row) {
  OutboxRecord mail;
  mail.id = row.integer(0);
  mail.kind = row.text(1);
  mail.user_id = row.text(2);
  mail.email = row.text(3);
  mail.created_at = row.integer(4);
  mail.attempts = static_cast<int>(row.integer(5));
  mail.next_attempt_at = row.integer(6);
  mail.password_hash = row.optional_text(7);
  mail.display_name = row.optional_text(8);
  mail.client_address = row.optional_text(9);
  return mail;
}

}  // namespace authd
