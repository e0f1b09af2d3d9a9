// How SQLite stores the links of upstream identities (interface.md 18.3).
// SQLite's single writer makes the unique (provider, subject) the one
// winner of two links of it.
#include "store/sqlite/identities.hpp"

#include <nlohmann/json.hpp>

#include "store/sqlite/connection.hpp"

namespace authd::sqlite {
namespace {

#define AUTHD_IDENTITY_COLUMNS_PLAIN \
  "id, user_id, provider, subject, email, created_at, last_used_at"
#define AUTHD_IDENTITY_COLUMNS \
  "id, user_id, provider, subject, coalesce(email, ''), created_at, last_used_at"

IdentityRecord read_identity(const Statement& st) {
  return IdentityRecord{st.text(0),
                        st.text(1),
                        st.text(2),
                        st.text(3),
                        st.text(4),
                        st.integer(5),
                        st.optional_integer(6)};
}

}  // namespace

bool Identities::insert(const IdentityRecord& i) {
  auto st = db_.prepare("INSERT INTO identities (" AUTHD_IDENTITY_COLUMNS_PLAIN
                        ") VALUES (?1, ?2, ?3, ?4, NULLIF(?5, ''), ?6, ?7) "
                        "ON CONFLICT DO NOTHING");
  st.bind(1, i.id).bind(2, i.user_id).bind(3, i.provider).bind(4, i.subject).bind(5, i.email);
  st.bind(6, i.created_at).bind(7, i.last_used_at);
  st.run();
  return db_.changes() == 1;
}

std::optional<IdentityRecord> Identities::by_subject(std::string_view provider,
                                                     std::string_view subject) {
  auto st = db_.prepare("SELECT " AUTHD_IDENTITY_COLUMNS
                        " FROM identities WHERE provider = ?1 AND subject = ?2");
  st.bind(1, provider).bind(2, subject);
  if (!st.step()) return std::nullopt;
  return read_identity(st);
}

std::optional<IdentityRecord> Identities::by_id(std::string_view id) {
  auto st = db_.prepare("SELECT " AUTHD_IDENTITY_COLUMNS " FROM identities WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_identity(st);
}

std::vector<IdentityRecord> Identities::of_user(std::string_view user_id) {
  auto st = db_.prepare("SELECT " AUTHD_IDENTITY_COLUMNS
                        " FROM identities WHERE user_id = ?1 ORDER BY created_at, id");
  st.bind(1, user_id);
  std::vector<IdentityRecord> identities;
  while (st.step()) identities.push_back(read_identity(st));
  return identities;
}

std::int64_t Identities::count_of(std::string_view user_id) {
  auto st = db_.prepare("SELECT count(*) FROM identities WHERE user_id = ?1");
  st.bind(1, user_id);
  st.step();
  return st.integer(0);
}

void Identities::record_use(std::string_view id, Millis at) {
  auto st = db_.prepare("UPDATE identities SET last_used_at = ?2 WHERE id = ?1");
  st.bind(1, id).bind(2, at);
  st.run();
}

bool Identities::keep_tokens(std::string_view id, const KeptTokensRecord& tokens) {
  auto st =
      db_.prepare("UPDATE identities SET kept_tokens = ?2, tokens_kept_at = ?3 WHERE id = ?1");
  st.bind(1, id).bind(2, tokens.sealed).bind(3, tokens.stored_at);
  st.run();
  return db_.changes() == 1;
}

bool Identities::forget_tokens(std::string_view id) {
  auto st = db_.prepare(
      "UPDATE identities SET kept_tokens = NULL, tokens_kept_at = NULL "
      "WHERE id = ?1 AND kept_tokens IS NOT NULL");
  st.bind(1, id);
  st.run();
  return db_.changes() == 1;
}

std::optional<KeptTokensRecord> Identities::kept_tokens(std::string_view id) {
  auto st = db_.prepare(
      "SELECT kept_tokens, tokens_kept_at FROM identities "
      "WHERE id = ?1 AND kept_tokens IS NOT NULL");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return KeptTokensRecord{st.text(0), st.integer(1)};
}

std::vector<SealedKeptTokens> Identities::kept_tokens_sealed_with_other_key(
    std::string_view key_id, std::string_view after_id, int limit) {
  // A sealed value starts "v1.<key id>.": its key is characters 4 to 11.
  auto st = db_.prepare(
      "SELECT id, kept_tokens FROM identities WHERE kept_tokens IS NOT NULL "
      "AND substr(kept_tokens, 4, 8) <> ?1 AND id > ?2 ORDER BY id LIMIT ?3");
  st.bind(1, key_id).bind(2, after_id).bind(3, std::int64_t{limit});
  std::vector<SealedKeptTokens> links;
  while (st.step()) links.push_back({st.text(0), st.text(1)});
  return links;
}

bool Identities::reseal_kept_tokens(std::string_view id, std::string_view was,
                                    std::string_view sealed) {
  auto st =
      db_.prepare("UPDATE identities SET kept_tokens = ?3 WHERE id = ?1 AND kept_tokens = ?2");
  st.bind(1, id).bind(2, was).bind(3, sealed);
  st.run();
  return db_.changes() == 1;
}

std::int64_t Identities::forget_tokens_not_kept_by(std::span<const std::string> keeping,
                                                   Millis kept_before, int limit) {
  auto st = db_.prepare(
      // The providers keeping theirs as one JSON array (json_each).
      "UPDATE identities SET kept_tokens = NULL, tokens_kept_at = NULL WHERE id IN ("
      " SELECT id FROM identities WHERE kept_tokens IS NOT NULL AND tokens_kept_at < ?2"
      " AND provider NOT IN (SELECT value FROM json_each(?1)) ORDER BY id LIMIT ?3)");
  st.bind(1, nlohmann::json(std::vector<std::string>(keeping.begin(), keeping.end())).dump())
      .bind(2, kept_before)
      .bind(3, std::int64_t{limit});
  st.run();
  return db_.changes();
}

bool Identities::remove(std::string_view id) {
  auto st = db_.prepare("DELETE FROM identities WHERE id = ?1");
  st.bind(1, id);
  st.run();
  return db_.changes() == 1;
}

std::int64_t Identities::remove_all_of(std::string_view user_id) {
  auto st = db_.prepare("DELETE FROM identities WHERE user_id = ?1");
  st.bind(1, user_id);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
