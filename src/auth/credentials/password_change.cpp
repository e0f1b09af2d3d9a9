#include "auth/credentials/password_change.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "auth/credentials/password_rules.hpp"
#include "auth/events/notices.hpp"
#include "auth/login/throttle.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<PasswordChangeOutcome> change_password(AuthContext& ctx,
                                                              const std::string& token,
                                                              std::string& current_password,
                                                              std::string& new_password,
                                                              const EventSource& source) {
  const std::string& client_address = source.client_address;
  WipeOnExit wipe_current(current_password);
  WipeOnExit wipe_new(new_password);
  const AuthPolicy& policy = ctx.policy;
  const Sha256Digest digest = sha256(token);
  PasswordChangeOutcome outcome;

  // 1. The session, then the rule that needs the account (interface.md 3.3).
  std::optional<UserRecord> user;
  auto find = [&](Transaction& tx) { user = live_session_user(tx, digest, now_millis()); };
  StoreStatus found = co_await ctx.db.read(find);
  if (found != StoreStatus::ok) co_return outcome;
  if (!user) {
    outcome.kind = PasswordChangeOutcome::Kind::invalid_token;
    co_return outcome;
  }
  if (auto problem = new_password_problem(new_password, user->email, "newPassword")) {
    outcome.kind = PasswordChangeOutcome::Kind::bad_password;
    outcome.problem = *problem;
    co_return outcome;
  }

  // 2. A place in the hashing pool, before anything is written (as login).
  std::optional<HashingPool::Place> place = ctx.hashing.reserve();
  if (!place) {
    outcome.kind = PasswordChangeOutcome::Kind::busy;
    co_return outcome;
  }

  // 3. The login throttles, and this attempt counted as a failed login up
  //    front (released on success), as login does: the same keys, locked
  //    in the same order, and the user's row only later (step 6), so that
  //    on PostgreSQL a login and a change of one account cannot deadlock.
  const std::string email_key = login_email_key(user->email);
  const std::vector<ThrottleCounter> per_client =
      client_counters(ClientCounterKind::login, client_address, policy.login_failures_per_client,
                      policy.ipv6_aggregates);
  ReservedFailure reserved;
  auto reserve = [&](Transaction& tx) {
    reserved = reserve_login_failure(
        tx, email_key, policy.login_failures_per_email, per_client, now_millis(),
        [&] { return ctx.hashing.failure_charge(user->password_hash); });
  };
  StoreStatus counted = co_await ctx.db.write(reserve);
  if (counted != StoreStatus::ok) co_return outcome;
  if (!reserved.verdict.allowed) {
    outcome.kind = PasswordChangeOutcome::Kind::throttled;
    outcome.retry_after = reserved.verdict.retry_after;
    co_return outcome;
  }

  // 4. The current password, on the hashing pool. A wrong one stays counted.
  VerifyResult verified =
      co_await ctx.hashing.verify(*place, current_password, user->password_hash);
  if (!verified.matches) {
    outcome.kind = PasswordChangeOutcome::Kind::wrong_password;
    co_return outcome;
  }

  // 5. The new hash, outside any transaction.
  std::optional<std::string> phc = co_await ctx.hashing.hash(new_password);
  auto release = [&](Transaction& tx) { reserved.release(tx); };
  if (!phc) {
    StoreStatus released = co_await ctx.db.write(release);
    outcome.kind = released == StoreStatus::ok ? PasswordChangeOutcome::Kind::busy
                                               : PasswordChangeOutcome::Kind::unavailable;
    co_return outcome;
  }

  // 6. Apply, if the session is still live: a reset, an operator or another
  //    change may have revoked it while we were hashing.
  auto apply = [&](Transaction& tx) {
    Millis now = now_millis();
    user = live_session_user(tx, digest, now);
    if (!user) return;
    now = std::max(now, user->updated_at + 1);  // updatedAt always moves forward (2.6)
    user->password_hash = *phc;
    user->updated_at = now;
    tx.users().update(*user);
    tx.reset_tokens().delete_of_user(user->id);
    tx.sessions().revoke_others_of_user(user->id, digest, now);
    reserved.clear_on_success(tx, email_key);  // as a login's success does
    record_event(tx, source, "password.changed", user->id, nlohmann::json::object(), now);
    queue_notice(tx, policy.notify, {NoticeTopic::password_changed, NoticeActor::self}, *user,
                 user->email, now);
  };
  StoreStatus applied = co_await ctx.db.write(apply);
  if (applied != StoreStatus::ok) co_return outcome;
  if (!user) {
    outcome.kind = PasswordChangeOutcome::Kind::invalid_token;
    co_return outcome;
  }
  outcome.kind = PasswordChangeOutcome::Kind::ok;
  outcome.user = std::move(*user);
  co_return outcome;
}

}  // namespace authd
