#include "auth/login/login.hpp"

#include <chrono>
#include <vector>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "auth/credentials/email.hpp"
#include "auth/events/events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/sessions/session.hpp"
#include "crypto/hashing_pool.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// Every 401 leaves no sooner than the verification floor after its
// verification started (interface.md 6 /login 2, 10.5): the time of a
// failure then follows the slowest kind of hash stored, not this account's
// kind, nor whether there is an account. Waited out on a timer of the
// connection's own thread: the hashing worker is free again already.
boost::asio::awaitable<void> wait_out_floor(const VerifyResult& verified) {
  if (std::chrono::steady_clock::now() >= verified.failure_not_before) co_return;
  auto executor = co_await boost::asio::this_coro::executor;
  boost::asio::steady_timer floor(executor, verified.failure_not_before);
  co_await floor.async_wait(boost::asio::use_awaitable);
}

// login.failed (interface.md 14.1): the account's id, or, when no account
// has the address, the address masked.
void record_failed_login(Transaction& tx, const EventSource& source,
                         const std::optional<UserRecord>& user, const std::string& email,
                         const char* reason, Millis now) {
  nlohmann::json detail = {{"reason", reason}};
  if (!user) detail["email"] = mask_email(email);
  record_event(tx, source, "login.failed", user ? std::optional(user->id) : std::nullopt, detail,
               now);
}

// A 429 (interface.md 14.1): counted in its key's open event, or the first
// of its key's window. An e-mail's event names the account (or the address
// masked); a client's names none, since it counts the refusals of every
// address that client tried. A refusal that counts looks no account up.
void record_throttled_login(Transaction& tx, const EventSource& source,
                            const ThrottleCounter& refused_by, const std::string& email,
                            Millis now) {
  if (count_throttled(tx, refused_by.key, now)) return;
  std::optional<std::string> user_id;
  nlohmann::json detail = {{"throttle", "client"}};
  if (refused_by.key == login_email_key(email)) {
    detail["throttle"] = "email";
    if (std::optional<UserRecord> user = tx.users().by_email(email)) {
      user_id = user->id;
    } else {
      detail["email"] = mask_email(email);
    }
  }
  record_throttled(tx, source, refused_by.key, refused_by.limit.window, user_id, detail, now);
}

}  // namespace

boost::asio::awaitable<LoginOutcome> log_in(AuthContext& ctx, const std::string& email,
                                            std::string& password, const SessionOrigin& origin,
                                            const EventSource& source,
                                            const SecondFactorInput& second) {
  const AuthPolicy& policy = ctx.policy;
  const std::string& client_address = origin.client_address;
  const std::string email_key = login_email_key(email);
  // The client's own counter, and for IPv6 its /56's and /48's.
  const std::vector<ThrottleCounter> per_client =
      client_counters(ClientCounterKind::login, client_address, policy.login_failures_per_client,
                      policy.ipv6_aggregates);
  LoginOutcome outcome;

  // 0. A place in the hashing pool first: a login the pool cannot take is
  //    answered 503 before it costs a database write. Under a login flood
  //    most logins are these, and they then hold no memory and no fsync
  //    while they wait for nothing
  //    (docs/design/performance-choices.md#a-place-in-the-hashing-pool-first).
  std::optional<HashingPool::Place> place = ctx.hashing.reserve();
  if (!place) {
    outcome.kind = LoginOutcome::Kind::busy;
    co_return outcome;
  }

  // 1. Throttle, and count this attempt as a failure up front. Reserving the
  //    failure before hashing keeps the limit exact even when an attacker
  //    sends many guesses at once; it is released if the password matches.
  ReservedFailure reserved;
  std::optional<UserRecord> user;
  Millis started = now_millis();
  auto reserve = [&](Transaction& tx) {
    user.reset();  // a transaction may run again: all anew
    // The account is read once the throttles' keys are locked (the order
    // every attempt takes them in) and they allow the attempt: a failure
    // at its hash counts as many failures as the hash costs (interface.md
    // 10.5), and a 429 looks no account up (14.1).
    auto charge = [&] {
      user = tx.users().by_email(email);
      return ctx.hashing.failure_charge(user ? user->password_hash : std::nullopt);
    };
    reserved = reserve_login_failure(tx, email_key, policy.login_failures_per_email, per_client,
                                     started, charge);
    if (reserved.verdict.allowed) return;
    spend_passkey_challenge(tx, second.passkey, started);
    record_throttled_login(tx, source, reserved.refused_by, email, started);
  };
  StoreStatus status = co_await ctx.db.write(reserve);
  if (status != StoreStatus::ok) co_return outcome;
  if (!reserved.verdict.allowed) {
    outcome.kind = LoginOutcome::Kind::throttled;
    outcome.retry_after = reserved.verdict.retry_after;
    co_return outcome;
  }

  // 2. One full verification, against a dummy hash for an unknown e-mail,
  //    so both failures cost the work of a hash; a failure is then answered
  //    at the floor, so both take the same time whatever the stored hash.
  std::optional<std::string> stored_hash;
  if (user) stored_hash = user->password_hash;
  VerifyResult verified = co_await ctx.hashing.verify(*place, password, stored_hash);

  // Un-counts this attempt only (a 403 is not a failed guess).
  auto release = [&](Transaction& tx) {
    reserved.release(tx);
    record_failed_login(tx, source, user, email, "disabled", now_millis());
  };
  if (!user || !verified.matches) {
    // Its own commit: the failure was counted before the hash, when it was
    // not known to be one (a crash in between leaves it counted, unrecorded).
    auto record = [&](Transaction& tx) {
      record_failed_login(tx, source, user, email, "credentials", now_millis());
      spend_passkey_challenge(tx, second.passkey, now_millis());
    };
    co_await ctx.db.write(record);
    co_await wait_out_floor(verified);
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

  // 3. Success: the second factor, if the account has one (its step or
  //    recovery code taken by this commit), then clear the count, upgrade
  //    an outdated hash, open a session, unless the account changed while
  //    we were hashing.
  IssuedSession session = new_session(user->id, now_millis(), policy.session_lifetime, origin);
  enum class Found { ok, disabled, password_changed, second_factor, no_key } found = Found::ok;
  auto open_session = [&](Transaction& tx) {
    found = Found::ok;  // a transaction may run again: all anew
    auto current = tx.users().by_id(user->id);
    // Another hash than the one we verified: either a concurrent login
    // upgraded it (same password, updatedAt untouched), or the password was
    // set meanwhile (updatedAt moved): then the password we verified is no
    // longer the account's. That is a failed attempt: it stays counted, and
    // no session opens after the change that revoked them all.
    bool hash_changed = current && current->password_hash != user->password_hash;
    const Millis now = session.record.created_at;
    if (!current || (hash_changed && current->updated_at != user->updated_at)) {
      found = Found::password_changed;
      record_failed_login(tx, source, current, email, "credentials", now);
      return;
    }
    if (current->disabled) {  // disabled while we were hashing: 403 (12.3.7)
      reserved.clear_on_success(tx, email_key);
      found = Found::disabled;
      record_failed_login(tx, source, current, email, "disabled", now);
      return;  // before the factor, so that no step or recovery code is used up
    }
    const char* factor_used = nullptr;
    FactorVerdict verdict =
        check_second_factor(tx, ctx.sealer, user->id, second, now, &policy.webauthn);
    switch (verdict.check) {
      case FactorCheck::refused: {  // a failed login: the reservation stays
        found = Found::second_factor;
        outcome.second_factors = second_factor_list(verdict);
        nlohmann::json detail = {{"reason", "second_factor"}};
        if (verdict.passkey_failed) detail["check"] = webauthn::check_name(*verdict.passkey_failed);
        record_event(tx, source, "login.failed", current->id, detail, now);
        return;
      }
      case FactorCheck::no_key:  // a 503, not a guess
        reserved.release(tx);
        found = Found::no_key;
        return;
      case FactorCheck::passed_with_recovery_code:
        factor_used = "recovery_code";
        record_recovery_code_used(tx, source, user->id, now);
        break;
      case FactorCheck::passed:
        factor_used = "totp";
        break;
      case FactorCheck::passed_with_passkey:
        factor_used = "webauthn";
        break;
      case FactorCheck::not_enrolled:
        break;
    }
    reserved.clear_on_success(tx, email_key);
    // A transparent upgrade changes only the hash, not updatedAt (2.6, 4.2).
    if (!verified.upgraded_hash.empty() && !hash_changed)
      tx.users().replace_password_hash(user->id, verified.upgraded_hash);
    tx.sessions().insert(session.record);
    // The admin view's lastLoginAt (interface.md 10.3); not a change of the
    // record, so updatedAt stays (2.6).
    tx.users().record_login(user->id, session.record.created_at);
    nlohmann::json detail = {{"sessionId", session.record.public_id}};
    detail["secondFactor"] = factor_used != nullptr ? nlohmann::json(factor_used) : nullptr;
    if (!verdict.passkey_id.empty()) detail["passkeyId"] = verdict.passkey_id;
    detail["method"] = "password";
    record_event(tx, source, "login.succeeded", user->id, detail, now);
    current->last_login_at = session.record.created_at;
    user = std::move(current);
  };
  StoreStatus opened = co_await ctx.db.write(open_session);
  if (opened != StoreStatus::ok) co_return outcome;
  if (found == Found::password_changed) {
    co_await wait_out_floor(verified);
    outcome.kind = LoginOutcome::Kind::invalid_credentials;
    co_return outcome;
  }
  if (found == Found::disabled) {
    outcome.kind = LoginOutcome::Kind::disabled;
    co_return outcome;
  }
  if (found == Found::second_factor) {
    // As late as a wrong password: a wrong code and a missing one cost the
    // same, and the same as any other 401.
    co_await wait_out_floor(verified);
    outcome.kind = LoginOutcome::Kind::second_factor_required;
    co_return outcome;
  }
  if (found == Found::no_key) co_return outcome;  // unavailable
  outcome.kind = LoginOutcome::Kind::success;
  outcome.user = std::move(*user);
  outcome.token = std::move(session.token);
  co_return outcome;
}

}  // namespace authd
