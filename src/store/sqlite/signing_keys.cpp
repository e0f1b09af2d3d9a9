// How SQLite stores the provider's signing keys (interface.md 17.12): one
// row per key, one key per (alg, generation): of two instances making the
// same next key, the second's insert changes nothing.
#include "store/oauth_columns.hpp"
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

bool SigningKeys::insert(const SigningKeyRecord& k) {
  auto st = db_.prepare("INSERT INTO oidc_signing_keys (" AUTHD_SIGNING_KEY_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                        "ON CONFLICT (alg, generation) DO NOTHING");
  st.bind(1, k.kid).bind(2, k.alg).bind(3, k.generation).bind(4, k.public_jwk);
  st.bind(5, k.sealed_private).bind(6, k.created_at).bind(7, k.signs_from);
  st.bind(8, k.retired_at).bind(9, k.remove_after);
  st.run();
  return db_.changes() == 1;
}

std::vector<SigningKeyRecord> SigningKeys::list() {
  auto st = db_.prepare("SELECT " AUTHD_SIGNING_KEY_COLUMNS
                        " FROM oidc_signing_keys ORDER BY alg, generation");
  std::vector<SigningKeyRecord> keys;
  while (st.step()) keys.push_back(read_signing_key(st));
  return keys;
}

// A key retired already keeps its first retirement: when it stopped signing.
bool SigningKeys::retire(std::string_view kid, Millis retired_at, Millis remove_after) {
  auto st = db_.prepare(
      "UPDATE oidc_signing_keys SET retired_at = ?2, remove_after = ?3 "
      "WHERE kid = ?1 AND retired_at IS NULL");
  st.bind(1, kid).bind(2, retired_at).bind(3, remove_after);
  st.run();
  return db_.changes() == 1;
}

bool SigningKeys::set_signs_from(std::string_view kid, Millis signs_from) {
  auto st = db_.prepare("UPDATE oidc_signing_keys SET signs_from = ?2 WHERE kid = ?1");
  st.bind(1, kid).bind(2, signs_from);
  st.run();
  return db_.changes() == 1;
}

bool SigningKeys::reseal(std::string_view kid, std::string_view sealed_private) {
  auto st = db_.prepare("UPDATE oidc_signing_keys SET sealed_private = ?2 WHERE kid = ?1");
  st.bind(1, kid).bind(2, sealed_private);
  st.run();
  return db_.changes() == 1;
}

std::int64_t SigningKeys::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("oidc_signing_keys", "kid", "remove_after <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
