#include "auth/login.hpp"

#include "auth/session.hpp"
#include "auth/throttle.hpp"
#include "crypto/hashing_pool.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<LoginOutcome> log_in(AuthContext& ctx, const std::string& email,
                                            std::string& password,
                                            const std::string& client_address) {
  const AuthPolicy& policy = ctx.policy;
  const std::string email_key = login_email_key(email);
  const std::string client_key = login_client_key(client_address);
  LoginOutcome outcome;

  // 1. Throttle, and count this attempt as a failure up front. Reserving the
  //    failure before hashing keeps the limit exact even when an attacker
  //    sends many guesses at once; it is released if the password matches.
  ThrottleVerdict verdict;
  std::int64_t email_event = 0;
  std::int64_t client_event = 0;
  std::optional<UserRecord> user;
  Millis started = now_millis();
  auto reserve = [&](Transaction& tx) {
    verdict =
        combine(check_throttle(tx, email_key, started, policy.login_failures_per_email),
                check_throttle(tx, client_key, started, policy.login_failures_per_client));
    if (!verdict.allowed) return;
    email_event = tx.insert_event(email_key, started);
    client_event = tx.insert_event(client_key, started);
    user = tx.user_by_email(email);
  };
  StoreStatus status = co_await ctx.db.write(reserve);
  if (status != StoreStatus::ok) co_return outcome;
  if (!verdict.allowed) {
    outcome.kind = LoginOutcome::Kind::throttled;
    outcome.retry_after = verdict.retry_after;
    co_return outcome;
  }

  // 2. One full argon2id verification, against a dummy hash for an unknown
  //    e-mail, so both failures cost the same time.
  std::optional<std::string> stored_hash;
  if (user) stored_hash = user->password_hash;
  std::optional<VerifyResult> verified = co_await ctx.hashing.verify(password, stored_hash);

  // Un-counts this attempt only (the 503 and 403 cases are not failures).
  auto release = [&](Transaction& tx) {
    tx.delete_event(email_event);
    tx.delete_event(client_event);
  };
  if (!verified) {
    // Not an attempt at all: the pool refused it. Release, then say busy.
    StoreStatus released = co_await ctx.db.write(release);
    outcome.kind =
        released == StoreStatus::ok ? LoginOutcome::Kind::busy : LoginOutcome::Kind::unavailable;
    co_return outcome;
  }
  if (!user || !verified->matches) {
    outcome.kind = LoginOutcome::Kind::invalid_credentials;  // the reservation stays
    co_return outcome;
  }
  if (user->disabled) {
    // Not a failed guess (403, not 401): do not count it.
    StoreStatus released = co_await ctx.db.write(release);
    outcome.kind = released == StoreStatus::ok ? LoginOutcome::Kind::disabled
                                               : LoginOutcome::Kind::unavailable;
    co_return outcome;
  }

  // 3. Success: clear the count, upgrade an outdated hash, open a session.
  IssuedSession session = new_session(user->id, now_millis(), policy.session_lifetime);
  bool still_enabled = false;
  auto open_session = [&](Transaction& tx) {
    tx.delete_events(email_key);  // a success clears the e-mail's count
    tx.delete_event(client_event);
    auto current = tx.user_by_id(user->id);
    still_enabled = current && !current->disabled;
    if (!still_enabled) return;  // disabled while we were hashing
    if (!verified->upgraded_hash.empty()) tx.replace_password_hash(user->id, verified->upgraded_hash);
    tx.insert_session(session.record);
    user = std::move(current);
  };
  StoreStatus opened = co_await ctx.db.write(open_session);
  if (opened != StoreStatus::ok) co_return outcome;
  if (!still_enabled) {
    outcome.kind = LoginOutcome::Kind::disabled;
    co_return outcome;
  }
  outcome.kind = LoginOutcome::Kind::success;
  outcome.user = std::move(*user);
  outcome.token = std::move(session.token);
  co_return outcome;
}

}  // namespace authd
