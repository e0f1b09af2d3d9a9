// How PostgreSQL stores the provider's signing keys (interface.md 17.12):
// one row per key, one key per (alg, generation): of two instances making
// the same next key, the second's insert waits for the first's commit and
// then changes nothing.
#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

bool SigningKeys::insert(const SigningKeyRecord& k) {
  Params params;
  params.text(k.kid).text(k.alg).integer(k.generation).text(k.public_jwk);
  params.text(k.sealed_private).integer(k.created_at).integer(k.signs_from);
  params.integer(k.retired_at).integer(k.remove_after);
  return db_.run("INSERT INTO oidc_signing_keys (" AUTHD_SIGNING_KEY_COLUMNS
                 ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
                 "ON CONFLICT (alg, generation) DO NOTHING",
                 params)
             .affected() == 1;
}

std::vector<SigningKeyRecord> SigningKeys::list() {
  Result rows = db_.run("SELECT " AUTHD_SIGNING_KEY_COLUMNS
                        " FROM oidc_signing_keys ORDER BY alg COLLATE \"C\", generation");
  std::vector<SigningKeyRecord> keys;
  keys.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) keys.push_back(read_signing_key(Row(rows, i)));
  return keys;
}

// A key retired already keeps its first retirement: when it stopped signing.
bool SigningKeys::retire(std::string_view kid, Millis retired_at, Millis remove_after) {
  Params params;
  params.text(kid).integer(retired_at).integer(remove_after);
  return db_.run(
                "UPDATE oidc_signing_keys SET retired_at = $2, remove_after = $3 "
                "WHERE kid = $1 AND retired_at IS NULL",
                params)
             .affected() == 1;
}

bool SigningKeys::set_signs_from(std::string_view kid, Millis signs_from) {
  Params params;
  params.text(kid).integer(signs_from);
  return db_.run("UPDATE oidc_signing_keys SET signs_from = $2 WHERE kid = $1", params)
             .affected() == 1;
}

bool SigningKeys::reseal(std::string_view kid, std::string_view sealed_private) {
  Params params;
  params.text(kid).text(sealed_private);
  return db_.run("UPDATE oidc_signing_keys SET sealed_private = $2 WHERE kid = $1", params)
             .affected() == 1;
}

std::int64_t SigningKeys::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run(AUTHD_PRUNE("oidc_signing_keys", "remove_after <= $1"), params).affected();
}

}  // namespace authd::postgres
