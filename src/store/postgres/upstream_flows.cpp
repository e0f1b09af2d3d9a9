// How PostgreSQL stores the upstream flows waiting for their callback
// (interface.md 18.2), keyed by the digest of their state.
#include "store/postgres/connection.hpp"
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

std::int64_t UpstreamFlows::prune(Millis now) {
  Params params;
  params.integer(now);
  return db_.run("DELETE FROM upstream_flows WHERE expires_at <= $1", params).affected();
}

}  // namespace authd::postgres
