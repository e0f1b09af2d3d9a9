// How SQLite stores the upstream flows waiting for their callback
// (interface.md 18.2), keyed by the digest of their state.
#include "store/sqlite/connection.hpp"
#include "store/sqlite/prune.hpp"
#include "store/sqlite/transaction.hpp"

namespace authd::sqlite {

void UpstreamFlows::insert(const UpstreamFlowRecord& r) {
  auto st = db_.prepare(
      "INSERT INTO upstream_flows (state_digest, binder_digest, provider, purpose, user_id, "
      "request_id, return_path, created_at, expires_at, used_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  st.bind(1, r.state_digest).bind(2, r.binder_digest).bind(3, r.provider).bind(4, r.purpose);
  st.bind(5, r.user_id).bind(6, r.request_id).bind(7, r.return_path);
  st.bind(8, r.created_at).bind(9, r.expires_at).bind(10, r.used_at);
  st.run();
}

std::optional<UpstreamFlowRecord> UpstreamFlows::take(const Sha256Digest& state_digest,
                                                      Millis now) {
  // One writer at a time on SQLite: the read and the mark cannot interleave
  // with another take.
  auto st = db_.prepare(
      "SELECT state_digest, binder_digest, provider, purpose, user_id, request_id, "
      "return_path, created_at, expires_at, used_at FROM upstream_flows WHERE state_digest = ?1");
  st.bind(1, state_digest);
  if (!st.step()) return std::nullopt;
  UpstreamFlowRecord r{
      st.digest(0), st.digest(1), st.text(2),    st.text(3),    st.text(4),
      st.text(5),   st.text(6),   st.integer(7), st.integer(8), st.optional_integer(9)};
  while (st.step()) {
  }
  if (!r.used_at) {
    auto mark = db_.prepare("UPDATE upstream_flows SET used_at = ?2 WHERE state_digest = ?1");
    mark.bind(1, state_digest).bind(2, now);
    mark.run();
  }
  return r;
}

void UpstreamFlows::await_second_factor(const Sha256Digest& state_digest,
                                        const std::string& user_id, Millis until) {
  auto st = db_.prepare(
      "UPDATE upstream_flows SET awaiting_user_id = ?2, awaiting_until = ?3, wrong_tries = 0 "
      "WHERE state_digest = ?1");
  st.bind(1, state_digest).bind(2, user_id).bind(3, until);
  st.run();
}

std::optional<AwaitedSecondFactor> UpstreamFlows::awaiting(const Sha256Digest& binder_digest) {
  auto st = db_.prepare(
      "SELECT state_digest, binder_digest, provider, purpose, user_id, request_id, "
      "return_path, created_at, expires_at, used_at, awaiting_user_id, awaiting_until, "
      "wrong_tries FROM upstream_flows "
      "WHERE binder_digest = ?1 AND awaiting_user_id IS NOT NULL");
  st.bind(1, binder_digest);
  if (!st.step()) return std::nullopt;
  AwaitedSecondFactor r{{st.digest(0), st.digest(1), st.text(2), st.text(3), st.text(4), st.text(5),
                         st.text(6), st.integer(7), st.integer(8), st.optional_integer(9)},
                        st.text(10),
                        st.integer(11),
                        static_cast<int>(st.integer(12))};
  while (st.step()) {
  }
  return r;
}

int UpstreamFlows::count_wrong_try(const Sha256Digest& state_digest) {
  auto add = db_.prepare(
      "UPDATE upstream_flows SET wrong_tries = wrong_tries + 1 WHERE state_digest = ?1");
  add.bind(1, state_digest);
  add.run();
  auto st = db_.prepare("SELECT wrong_tries FROM upstream_flows WHERE state_digest = ?1");
  st.bind(1, state_digest);
  int tries = st.step() ? static_cast<int>(st.integer(0)) : 0;
  while (st.step()) {
  }
  return tries;
}

void UpstreamFlows::end_wait(const Sha256Digest& state_digest) {
  auto st =
      db_.prepare("UPDATE upstream_flows SET awaiting_user_id = NULL WHERE state_digest = ?1");
  st.bind(1, state_digest);
  st.run();
}

std::int64_t UpstreamFlows::prune(Millis now) {
  auto st = db_.prepare(
      AUTHD_PRUNE("upstream_flows", "state_digest",
                  "expires_at <= ?1 AND (awaiting_until IS NULL OR awaiting_until <= ?1)"));
  st.bind(1, now);
  st.run();
  return db_.changes();
}

}  // namespace authd::sqlite
