#include "store/postgres/shared_access_tokens.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/user_columns.hpp"

namespace authd::postgres {
namespace {

// The user's columns first (read_user reads from 0), the token's after; the
// subquery renames the token's created_at away from the user's.
constexpr const char* kTokenUserSql =
    "SELECT " AUTHD_USER_COLUMNS ", " AUTHD_OAUTH_TOKEN_COLUMNS_AS_JOINED
    " FROM users JOIN (SELECT " AUTHD_OAUTH_TOKEN_COLUMNS_RENAMED
    " FROM oauth_access_tokens WHERE token_digest = $1 AND expires_at > $2)"
    " AS t ON users.id = t.user_id";

// The same for every digest of a batch, each with its own time, and the
// digest's place in the arrays (from 1): a digest sent twice gets its row
// twice. The lateral join keeps the plan a primary-key lookup per digest
// whatever the arrays' length, as the statement for one digest is.
constexpr const char* kTokenUsersSql =
    "SELECT " AUTHD_USER_COLUMNS ", " AUTHD_OAUTH_TOKEN_COLUMNS_AS_JOINED
    ", d.n FROM unnest($1::bytea[], $2::bigint[]) WITH ORDINALITY AS d (digest, asked_at, n)"
    " CROSS JOIN LATERAL (SELECT " AUTHD_OAUTH_TOKEN_COLUMNS_RENAMED
    " FROM oauth_access_tokens WHERE token_digest = d.digest AND expires_at > d.asked_at) AS t"
    " JOIN users ON users.id = t.user_id";

// The place follows the token's columns, however many the list names.
constexpr std::string_view kTokenColumns = AUTHD_OAUTH_TOKEN_COLUMNS;
constexpr int kTokenPlaceColumn =
    kUserColumnCount + 1 +
    static_cast<int>(std::count(kTokenColumns.begin(), kTokenColumns.end(), ','));

AccessTokenUser read_live_token_user(const Row& row) {
  return AccessTokenUser{read_access_token(row, kUserColumnCount), read_user(row)};
}

}  // namespace

std::optional<AccessTokenUser> SharedAccessTokens::live_with_user(Connection& db,
                                                                  PipelineTurns& turns,
                                                                  const Sha256Digest& digest,
                                                                  Millis now) {
  return lookups_.share(turns, {digest, now}, [&db](Shared::Group& group) { look_up(db, group); });
}

std::optional<AccessTokenUser> SharedAccessTokens::live_with_user_alone(Connection& db,
                                                                        const Sha256Digest& digest,
                                                                        Millis now) {
  Params params;
  params.digest(digest).integer(now);
  Result rows = db.run(kTokenUserSql, params);
  if (rows.rows() == 0) return std::nullopt;
  return read_live_token_user(Row(rows, 0));
}

void SharedAccessTokens::look_up(Connection& db, Shared::Group& group) {
  if (group.asks.size() == 1) {
    group.answers.front() =
        live_with_user_alone(db, group.asks.front().digest, group.asks.front().now);
    return;
  }
  std::vector<Sha256Digest> digests;
  std::vector<std::string> nows;
  digests.reserve(group.asks.size());
  nows.reserve(group.asks.size());
  for (const Ask& ask : group.asks) {
    digests.push_back(ask.digest);
    nows.push_back(std::to_string(ask.now));
  }
  Params params;
  params.digest_array(digests).text_array(nows);
  Result rows = db.run(kTokenUsersSql, params);
  for (int i = 0; i < rows.rows(); ++i) {
    Row row(rows, i);
    // A place out of range would be another unit's answer or none: the
    // group fails rather than answer a unit with another's token.
    const std::int64_t place = row.integer(kTokenPlaceColumn);
    if (place < 1 || static_cast<std::size_t>(place) > digests.size())
      throw StoreError("a shared token statement answered for a digest it was not sent");
    group.answers[static_cast<std::size_t>(place - 1)] = read_live_token_user(row);
  }
}

}  // namespace authd::postgres
