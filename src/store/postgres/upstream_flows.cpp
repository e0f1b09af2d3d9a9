// How PostgreSQL stores the upstream flows waiting for their callback
// (interface.md 18.2), keyed by the digest of their state.
#include "store/postgres/connection.hpp"
#include "store/postgres/prune.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::postgres {

void UpstreamFlows::insert(const UpstreamFlowRecord& r) {
  Params params;
  params.digest(r.state_digest).digest(r.binder_digest).text(r.provider).text(r.purpose);
  params.text(r.user_id).text(r.request_id).text(r.return_path);
  params.integer(r.created_at).integer(r.expires_at).integer(r.used_at);
  db_.run(
      "INSERT INTO upstream_flows (state_digest, binder_digest, provider, purpose, user_id, "
      "request_id, return_path, created_at, expires_at, used_at) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
      params);
}

std::optional<UpstreamFlowRecord> UpstreamFlows::take(const Sha256Digest& state_digest,
                                                      Millis now) {
  // Locked: of two callbacks with one state, the second waits for the
  // first's commit and then sees the flow used.
  Params params;
  params.digest(state_digest);
  Result rows = db_.run(
      "SELECT state_digest, binder_digest, provider, purpose, user_id, request_id, "
      "return_path, created_at, expires_at, used_at FROM upstream_flows "
      "WHERE state_digest = $1 FOR UPDATE",
      params);
  if (rows.rows() == 0) return std::nullopt;
  UpstreamFlowRecord r{rows.digest(0, 0),  rows.digest(0, 1),
                       rows.text(0, 2),    rows.text(0, 3),
                       rows.text(0, 4),    rows.text(0, 5),
                       rows.text(0, 6),    rows.integer(0, 7),
                       rows.integer(0, 8), rows.optional_integer(0, 9)};
  if (!r.used_at) {
    Params mark;
    mark.digest(state_digest).integer(now);
    db_.run("UPDATE upstream_flows SET used_at = $2 WHERE state_digest = $1", mark);
  }
  return r;
}

void UpstreamFlows::await_second_factor(const Sha256Digest& state_digest,
                                        const std::string& user_id, Millis until) {
  Params params;
  params.digest(state_digest).text(user_id).integer(until);
  db_.run(
      "UPDATE upstream_flows SET awaiting_user_id = $2, awaiting_until = $3, wrong_tries = 0 "
      "WHERE state_digest = $1",
      params);
}

std::optional<AwaitedSecondFactor> UpstreamFlows::awaiting(const Sha256Digest& binder_digest) {
  // Locked in a write: two tries of one wait count one after the other.
  // The page that asks for the factor only reads it.
#define AUTHD_AWAITING_SELECT                                                        \
  "SELECT state_digest, binder_digest, provider, purpose, user_id, request_id, "     \
  "return_path, created_at, expires_at, used_at, awaiting_user_id, awaiting_until, " \
  "wrong_tries FROM upstream_flows WHERE binder_digest = $1 AND awaiting_user_id IS NOT NULL"
  Params params;
  params.digest(binder_digest);
  Result rows = locking_ ? db_.run(AUTHD_AWAITING_SELECT " FOR UPDATE", params)
                         : db_.run(AUTHD_AWAITING_SELECT, params);
#undef AUTHD_AWAITING_SELECT
  if (rows.rows() == 0) return std::nullopt;
  return AwaitedSecondFactor{{rows.digest(0, 0), rows.digest(0, 1), rows.text(0, 2),
                              rows.text(0, 3), rows.text(0, 4), rows.text(0, 5), rows.text(0, 6),
                              rows.integer(0, 7), rows.integer(0, 8), rows.optional_integer(0, 9)},
                             rows.text(0, 10),
                             rows.integer(0, 11),
                             static_cast<int>(rows.integer(0, 12))};
}

int UpstreamFlows::count_wrong_try(const Sha256Digest& state_digest) {
  Params params;
  params.digest(state_digest);
  Result rows = db_.run(
      "UPDATE upstream_flows SET wrong_tries = wrong_tries + 1 WHERE state_digest = $1 "
      "RETURNING wrong_tries",
      params);
  return rows.rows() == 0 ? 0 : static_cast<int>(rows.integer(0, 0));
}

void UpstreamFlows::end_wait(const Sha256Digest& state_digest) {
  Params params;
  params.digest(state_digest);
  db_.run("UPDATE upstream_flows SET awaiting_user_id = NULL WHERE state_digest = $1", params);
}

std::int64_t UpstreamFlows::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_
      .run(AUTHD_PRUNE("upstream_flows",
                       "expires_at <= $1 AND (awaiting_until IS NULL OR awaiting_until <= $1)"),
           params)
      .affected();
}

}  // namespace authd::postgres
