// How PostgreSQL stores the links of upstream identities (interface.md
// 18.3). Of two transactions linking one (provider, subject), on any
// instance, the unique key makes the second's INSERT wait for the first's
// commit and then do nothing: it returns false, and a read that follows (a
// new statement, under READ COMMITTED) sees the first one's link.
#include "store/postgres/identities.hpp"

#include "store/postgres/connection.hpp"
#include "store/postgres/params.hpp"

namespace authd::postgres {
namespace {

#define AUTHD_IDENTITY_COLUMNS \
  "id, user_id, provider, subject, coalesce(email, ''), created_at, last_used_at"

IdentityRecord read_identity(const Row& row) {
  return IdentityRecord{row.text(0),
                        row.text(1),
                        row.text(2),
                        row.text(3),
                        row.text(4),
                        row.integer(5),
                        row.optional_integer(6)};
}

}  // namespace

bool Identities::insert(const IdentityRecord& i) {
  Params params;
  params.text(i.id).text(i.user_id).text(i.provider).text(i.subject).text(i.email);
  params.integer(i.created_at).integer(i.last_used_at);
  return db_.run(
                "INSERT INTO identities "
                "(id, user_id, provider, subject, email, created_at, last_used_at) "
                "VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6, $7) ON CONFLICT DO NOTHING",
                params)
             .affected() == 1;
}

std::optional<IdentityRecord> Identities::by_subject(std::string_view provider,
                                                     std::string_view subject) {
  Params params;
  params.text(provider).text(subject);
  Result rows = db_.run("SELECT " AUTHD_IDENTITY_COLUMNS
                        " FROM identities WHERE provider = $1 AND subject = $2",
                        params);
  if (rows.rows() == 0) return std::nullopt;
  return read_identity(Row(rows, 0));
}

std::optional<IdentityRecord> Identities::by_id(std::string_view id) {
  Params params;
  params.text(id);
  Result rows = db_.run("SELECT " AUTHD_IDENTITY_COLUMNS " FROM identities WHERE id = $1", params);
  if (rows.rows() == 0) return std::nullopt;
  return read_identity(Row(rows, 0));
}

std::vector<IdentityRecord> Identities::of_user(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows = db_.run("SELECT " AUTHD_IDENTITY_COLUMNS
                        " FROM identities WHERE user_id = $1 ORDER BY created_at, id COLLATE \"C\"",
                        params);
  std::vector<IdentityRecord> identities;
  identities.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) identities.push_back(read_identity(Row(rows, i)));
  return identities;
}

std::int64_t Identities::count_of(std::string_view user_id) {
  Params params;
  params.text(user_id);
  Result rows = db_.run("SELECT count(*) FROM identities WHERE user_id = $1", params);
  return Row(rows, 0).integer(0);
}

void Identities::record_use(std::string_view id, Millis at) {
  Params params;
  params.text(id).integer(at);
  db_.run("UPDATE identities SET last_used_at = $2 WHERE id = $1", params);
}

bool Identities::keep_tokens(std::string_view id, const KeptTokensRecord& tokens) {
  Params params;
  params.text(id).text(tokens.sealed).integer(tokens.stored_at);
  return db_.run("UPDATE identities SET kept_tokens = $2, tokens_kept_at = $3 WHERE id = $1",
                 params)
             .affected() == 1;
}

bool Identities::forget_tokens(std::string_view id) {
  Params params;
  params.text(id);
  return db_.run(
                "UPDATE identities SET kept_tokens = NULL, tokens_kept_at = NULL "
                "WHERE id = $1 AND kept_tokens IS NOT NULL",
                params)
             .affected() == 1;
}

std::optional<KeptTokensRecord> Identities::kept_tokens(std::string_view id) {
  Params params;
  params.text(id);
  Result rows = db_.run(
      "SELECT kept_tokens, tokens_kept_at FROM identities "
      "WHERE id = $1 AND kept_tokens IS NOT NULL",
      params);
  if (rows.rows() == 0) return std::nullopt;
  Row row(rows, 0);
  return KeptTokensRecord{row.text(0), row.integer(1)};
}

std::vector<SealedKeptTokens> Identities::kept_tokens_sealed_with_other_key(
    std::string_view key_id, std::string_view after_id, int limit) {
  // A sealed value starts "v1.<key id>.": its key is characters 4 to 11.
  Params params;
  params.text(key_id).text(after_id).integer(std::int64_t{limit});
  Result rows = db_.run(
      "SELECT id, kept_tokens FROM identities WHERE kept_tokens IS NOT NULL "
      "AND substr(kept_tokens, 4, 8) <> $1 AND id COLLATE \"C\" > $2 "
      "ORDER BY id COLLATE \"C\" LIMIT $3",
      params);
  std::vector<SealedKeptTokens> links;
  links.reserve(static_cast<std::size_t>(rows.rows()));
  for (int i = 0; i < rows.rows(); ++i) links.push_back({rows.text(i, 0), rows.text(i, 1)});
  return links;
}

bool Identities::reseal_kept_tokens(std::string_view id, std::string_view was,
                                    std::string_view sealed) {
  Params params;
  params.text(id).text(was).text(sealed);
  return db_.run("UPDATE identities SET kept_tokens = $3 WHERE id = $1 AND kept_tokens = $2",
                 params)
             .affected() == 1;
}

std::int64_t Identities::forget_tokens_not_kept_by(std::span<const std::string> keeping,
                                                   Millis kept_before, int limit) {
  Params params;
  params.text_array(keeping).integer(kept_before).integer(limit);
  // In id order, and SKIP LOCKED: a sign-in or an erasure holding a link
  // goes on, and two instances sweeping at once never wait for each other.
  // The ids through an array, as the outbox's claim does: the subquery, its
  // LIMIT and its locks run once, and the update finds its rows by key.
  return db_
      .run(
          "UPDATE identities SET kept_tokens = NULL, tokens_kept_at = NULL WHERE id = ANY(ARRAY("
          " SELECT id FROM identities WHERE kept_tokens IS NOT NULL AND tokens_kept_at < $2"
          " AND provider <> ALL($1::text[]) ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED))",
          params)
      .affected();
}

bool Identities::remove(std::string_view id) {
  Params params;
  params.text(id);
  return db_.run("DELETE FROM identities WHERE id = $1", params).affected() == 1;
}

std::int64_t Identities::remove_all_of(std::string_view user_id) {
  Params params;
  params.text(user_id);
  return db_.run("DELETE FROM identities WHERE user_id = $1", params).affected();
}

}  // namespace authd::postgres
