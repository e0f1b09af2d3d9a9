// How PostgreSQL stores passkeys and their challenges (interface.md 16.6).
// A challenge is taken by one DELETE ... RETURNING: of two transactions
// naming it, on any instance, the row lock lets one delete it and the other
// finds nothing. A counter moves by one conditional UPDATE (READ COMMITTED
// re-checks its WHERE after the lock).
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {
namespace {

#define AUTHD_PASSKEY_COLUMNS \
  "id, user_id, name, algorithm, public_key, sign_count, backed_up, created_at, last_used_at"

PasskeyRecord read_passkey(const Row& row) {
  return PasskeyRecord{
      row.text(0),    row.text(1),    row.text(2),    static_cast<int>(row.integer(3)), row.text(4),
      row.integer(5), row.boolean(6), row.integer(7), row.optional_integer(8)};
}

}  // namespace

void Passkeys::put_challenge(const Sha256Digest& digest, ChallengePurpose purpose,
                             std::string_view user_id, Millis expires_at) {
  Params params;
  params.digest(digest)
      .integer(static_cast<std::int64_t>(purpose))
      .text(user_id)
      .integer(expires_at);
  db_.run(
      "INSERT INTO webauthn_challenges (digest, purpose, user_id, expires_at) "
      "VALUES ($1, $2, NULLIF($3, ''), $4)",
      params);
}

std::optional<std::string> Passkeys::take_challenge(const Sha256Digest& digest,
                                                    ChallengePurpose purpose, Millis now) {
  Params params;
  params.digest(digest);
  Result rows = db_.run(
      "DELETE FROM webauthn_challenges WHERE digest = $1 "
      "RETURNING purpose, coalesce(user_id, ''), expires_at",
      params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  if (row.integer(0) != static_cast<std::int64_t>(purpose) || row.integer(2) <= now)
    return std::nullopt;
  return row.text(1);
}

std::optional<PasskeyRecord> Passkeys::by_id(std::string_view id) {
  Params params;
  params.text(id);
  Result rows = db_.run("SELECT " AUTHD_PASSKEY_COLUMNS " FROM passkeys WHERE id = $1", params);
  if (rows.rows() == 0) return std::nullopt;
  return read_passkey(Row(rows, 0));
}

std::vector<PasskeyRecord> Passkeys::of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows = db_.run("SELECT " AUTHD_PASSKEY_COLUMNS
                        " FROM passkeys WHERE user_id = $1 ORDER BY created_at, id COLLATE \"C\"",
                        params);
  std::vector<PasskeyRecord> passkeys;
  passkeys.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) passkeys.push_back(read_passkey(Row(rows, i)));
  return passkeys;
}

std::int64_t Passkeys::count_of(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows = db_.run("SELECT count(*) FROM passkeys WHERE user_id = $1", params);
  return Row(rows, 0).integer(0);
}

bool Passkeys::insert(const PasskeyRecord& p) {
  Params params;
  params.text(p.id).text(p.user_id).text(p.name).integer(std::int64_t{p.algorithm});
  params.text(p.public_key).integer(p.sign_count).boolean(p.backed_up).integer(p.created_at);
  return db_.run("INSERT INTO passkeys (" AUTHD_PASSKEY_COLUMNS
                 ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL) ON CONFLICT (id) DO NOTHING",
                 params)
             .affected() == 1;
}

bool Passkeys::record_use(std::string_view id, std::int64_t was, std::int64_t sign_count,
                          bool backed_up, Millis at) {
  Params params;
  params.text(id).integer(was).integer(sign_count).boolean(backed_up).integer(at);
  return db_.run(
                "UPDATE passkeys SET sign_count = $3, backed_up = $4, last_used_at = $5 "
                "WHERE id = $1 AND sign_count = $2",
                params)
             .affected() == 1;
}

bool Passkeys::remove(std::string_view user_id, std::string_view id) {
  Params params;
  params.text(id).text(user_id);
  return db_.run("DELETE FROM passkeys WHERE id = $1 AND user_id = $2", params).affected() == 1;
}

std::int64_t Passkeys::remove_all_of(std::string_view user_id) {
  Params params;
  params.text(user_id);
  return db_.run("DELETE FROM passkeys WHERE user_id = $1", params).affected();
}

std::int64_t Passkeys::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("webauthn_challenges", "expires_at <= $1"), params).affected();
}

}  // namespace authd::postgres
