// How SQLite stores passkeys and their challenges (interface.md 16.6).
// SQLite's single writer makes each conditional DELETE or UPDATE below the
// one winner of a race.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {
namespace {

#define AUTHD_PASSKEY_COLUMNS \
  "id, user_id, name, algorithm, public_key, sign_count, backed_up, created_at, last_used_at"

PasskeyRecord read_passkey(const Statement& st) {
  return PasskeyRecord{
      st.text(0),    st.text(1),    st.text(2),    static_cast<int>(st.integer(3)), st.text(4),
      st.integer(5), st.boolean(6), st.integer(7), st.optional_integer(8)};
}

}  // namespace

void Passkeys::put_challenge(const Sha256Digest& digest, ChallengePurpose purpose,
                             std::string_view user_id, Millis expires_at) {
  auto st = db_.prepare(
      "INSERT INTO webauthn_challenges (digest, purpose, user_id, expires_at) "
      "VALUES (?1, ?2, NULLIF(?3, ''), ?4)");
  st.bind(1, digest)
      .bind(2, static_cast<std::int64_t>(purpose))
      .bind(3, user_id)
      .bind(4, expires_at);
  st.run();
}

std::optional<std::string> Passkeys::take_challenge(const Sha256Digest& digest,
                                                    ChallengePurpose purpose, Millis now) {
  auto st = db_.prepare(
      "DELETE FROM webauthn_challenges WHERE digest = ?1 "
      "RETURNING purpose, coalesce(user_id, ''), expires_at");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  bool fits = st.integer(0) == static_cast<std::int64_t>(purpose) && st.integer(2) > now;
  std::string user_id = st.text(1);
  while (st.step()) {
  }
  if (!fits) return std::nullopt;
  return user_id;
}

std::optional<PasskeyRecord> Passkeys::by_id(std::string_view id) {
  auto st = db_.prepare("SELECT " AUTHD_PASSKEY_COLUMNS " FROM passkeys WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_passkey(st);
}

std::vector<PasskeyRecord> Passkeys::of_user(std::string_view user_id) {
  auto st = db_.prepare("SELECT " AUTHD_PASSKEY_COLUMNS
                        " FROM passkeys WHERE user_id = ?1 ORDER BY created_at, id");
  st.bind(1, user_id);
  std::vector<PasskeyRecord> passkeys;
  while (st.step()) passkeys.push_back(read_passkey(st));
  return passkeys;
}

std::int64_t Passkeys::count_of(std::string_view user_id) {
  auto st = db_.prepare("SELECT count(*) FROM passkeys WHERE user_id = ?1");
  st.bind(1, user_id);
  st.step();
  return st.integer(0);
}

bool Passkeys::insert(const PasskeyRecord& p) {
  auto st = db_.prepare("INSERT INTO passkeys (" AUTHD_PASSKEY_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL) "
                        "ON CONFLICT (id) DO NOTHING");
  st.bind(1, p.id).bind(2, p.user_id).bind(3, p.name).bind(4, std::int64_t{p.algorithm});
  st.bind(5, p.public_key).bind(6, p.sign_count).bind(7, std::int64_t{p.backed_up ? 1 : 0});
  st.bind(8, p.created_at);
  st.run();
  return db_.changes() == 1;
}

bool Passkeys::record_use(std::string_view id, std::int64_t was, std::int64_t sign_count,
                          bool backed_up, Millis at) {
  auto st = db_.prepare(
      "UPDATE passkeys SET sign_count = ?3, backed_up = ?4, last_used_at = ?5 "
      "WHERE id = ?1 AND sign_count = ?2");
  st.bind(1, id).bind(2, was).bind(3, sign_count).bind(4, std::int64_t{backed_up ? 1 : 0});
  st.bind(5, at);
  st.run();
  return db_.changes() == 1;
}

bool Passkeys::remove(std::string_view user_id, std::string_view id) {
  auto st = db_.prepare("DELETE FROM passkeys WHERE id = ?1 AND user_id = ?2");
  st.bind(1, id).bind(2, user_id);
  st.run();
  return db_.changes() == 1;
}

std::int64_t Passkeys::remove_all_of(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM passkeys WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
  return db_.changes();
}

std::int64_t Passkeys::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("webauthn_challenges", "digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
