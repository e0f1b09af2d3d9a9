#include "store/postgres/mail_batch.hpp"

#include <optional>
#include <string>

#include "store/postgres/connection.hpp"

namespace authd::postgres {
namespace {

// The rows in the order added (ORDINALITY), so that their ids follow it.
constexpr const char* kInsertMailsSql =
    "INSERT INTO outbox (kind, user_id, email, created_at, attempts, next_attempt_at,"
    " password_hash, display_name, client_address) SELECT kind, user_id, email, created_at,"
    " attempts, next_attempt_at, password_hash, display_name, client_address FROM"
    " unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::int[], $6::bigint[],"
    " $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS m (kind, user_id, email,"
    " created_at, attempts, next_attempt_at, password_hash, display_name, client_address, n)"
    " ORDER BY n";

}  // namespace

void MailBatch::send_ahead(Connection& db) {
  if (mails_.empty()) return;
  // Column by column, as arrays.
  std::vector<std::optional<std::string>> kind, user_id, email, created_at, attempts,
      next_attempt_at, password_hash, display_name, client_address;
  for (const OutboxRecord& m : mails_) {
    kind.emplace_back(m.kind);
    user_id.emplace_back(m.user_id);
    email.emplace_back(m.email);
    created_at.emplace_back(std::to_string(m.created_at));
    attempts.emplace_back(std::to_string(m.attempts));
    next_attempt_at.emplace_back(std::to_string(m.next_attempt_at));
    password_hash.push_back(m.password_hash);
    display_name.push_back(m.display_name);
    client_address.push_back(m.client_address);
  }
  Params params;
  params.text_array(kind).text_array(user_id).text_array(email).text_array(created_at);
  params.text_array(attempts).text_array(next_attempt_at).text_array(password_hash);
  params.text_array(display_name).text_array(client_address);
  db.send_ahead(kInsertMailsSql, params);
  mails_.clear();
}

}  // namespace authd::postgres
