#include "store/postgres/shared_oauth_clients.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "store/oauth_columns.hpp"
#include "store/postgres/connection.hpp"
#include "store/postgres/read_pipeline.hpp"

namespace authd::postgres {
namespace {

constexpr const char* kClientSql =
    "SELECT " AUTHD_OAUTH_CLIENT_COLUMNS " FROM oauth_clients WHERE id = $1";

// The same for every id of a batch, with the id's place in the array
// (from 1): an id sent twice gets its row twice. The lateral join keeps
// the plan a primary-key lookup per id, as the statement for one id is.
constexpr const char* kClientsSql =
    "SELECT c.*, d.n FROM unnest($1::text[]) WITH ORDINALITY AS d (id, n)"
    " CROSS JOIN LATERAL (SELECT " AUTHD_OAUTH_CLIENT_COLUMNS
    " FROM oauth_clients WHERE id = d.id) AS c";

// The place follows the client's columns, however many the list names.
constexpr std::string_view kClientColumns = AUTHD_OAUTH_CLIENT_COLUMNS;
constexpr int kClientPlaceColumn =
    1 + static_cast<int>(std::count(kClientColumns.begin(), kClientColumns.end(), ','));

}  // namespace

std::optional<OAuthClientRecord> SharedOAuthClients::by_id(Connection& db, PipelineTurns& turns,
                                                           std::string_view id) {
  return lookups_.share(turns, std::string(id),
                        [&db](Shared::Group& group) { look_up(db, group); });
}

std::optional<OAuthClientRecord> SharedOAuthClients::by_id_alone(Connection& db,
                                                                 std::string_view id) {
  Params params;
  params.text(id);
  Result rows = db.run(kClientSql, params);
  if (rows.rows() == 0) return std::nullopt;
  return read_oauth_client(Row(rows, 0));
}

void SharedOAuthClients::look_up(Connection& db, Shared::Group& group) {
  if (group.asks.size() == 1) {
    group.answers.front() = by_id_alone(db, group.asks.front());
    return;
  }
  Params params;
  params.text_array(group.asks);
  Result rows = db.run(kClientsSql, params);
  for (int i = 0; i < rows.rows(); ++i) {
    Row row(rows, i);
    // A place out of range would be another unit's answer or none: the
    // group fails rather than answer a unit with another's client.
    const std::int64_t place = row.integer(kClientPlaceColumn);
    if (place < 1 || static_cast<std::size_t>(place) > group.asks.size())
      throw StoreError("a shared client statement answered for an id it was not sent");
    group.answers[static_cast<std::size_t>(place - 1)] = read_oauth_client(row);
  }
}

}  // namespace authd::postgres
