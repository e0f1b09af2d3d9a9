// How SQLite stores pending sign-ups: one row per address at most (a unique
// email), keyed by the verification token's digest.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void Signups::replace(const PendingSignupRecord& s) {
  // A write transaction holds SQLite's single write lock: no other writer
  // runs between the statement's conflict check and its write.
  auto st = db_.prepare(
      "INSERT INTO signups (token_digest, email, password_hash, display_name, created_at, "
      "expires_at, request_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (email) DO UPDATE "
      "SET token_digest = excluded.token_digest, password_hash = excluded.password_hash, "
      "display_name = excluded.display_name, created_at = excluded.created_at, "
      "expires_at = excluded.expires_at, request_id = excluded.request_id");
  st.bind(1, s.token_digest).bind(2, s.email).bind(3, s.password_hash).bind(4, s.display_name);
  st.bind(5, s.created_at).bind(6, s.expires_at).bind(7, s.request_id);
  st.run();
}

namespace {

#define AUTHD_SELECT_SIGNUPS                                                                     \
  "SELECT token_digest, email, password_hash, display_name, created_at, expires_at, request_id " \
  "FROM signups WHERE "

PendingSignupRecord read_signup(Statement& st) {
  return PendingSignupRecord{st.digest(0),  st.text(1),    st.text(2),   st.optional_text(3),
                             st.integer(4), st.integer(5), st.integer(6)};
}

}  // namespace

std::optional<PendingSignupRecord> Signups::by_digest(const Sha256Digest& digest) {
  auto st = db_.prepare(AUTHD_SELECT_SIGNUPS "token_digest = ?1");
  st.bind(1, digest);
  if (!st.step()) return std::nullopt;
  return read_signup(st);
}

std::optional<PendingSignupRecord> Signups::by_email(std::string_view email) {
  auto st = db_.prepare(AUTHD_SELECT_SIGNUPS "email = ?1");
  st.bind(1, email);
  if (!st.step()) return std::nullopt;
  return read_signup(st);
}

void Signups::remove(const Sha256Digest& digest) {
  auto st = db_.prepare("DELETE FROM signups WHERE token_digest = ?1");
  st.bind(1, digest);
  st.run();
}

void Signups::remove_of_email(std::string_view email) {
  auto st = db_.prepare("DELETE FROM signups WHERE email = ?1");
  st.bind(1, email);
  st.run();
}

std::int64_t Signups::prune(Millis now) {
  auto st = db_.prepare(AUTHD_PRUNE("signups", "token_digest", "expires_at <= ?1"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
