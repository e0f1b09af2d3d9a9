#include "auth/login/login.hpp"

#include <chrono>
#include <vector>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "auth/credentials/email.hpp"
#include "auth/events/events.hpp"
#include "auth/login/login_events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/sessions/session.hpp"
#include "crypto/hashing_pool.hpp"
#include "crypto/random.hpp"
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

// One login (interface.md 6 /login). run() holds the steps' awaits, in the
// order they run; what a step does between them (a transaction, an answer)
// is a member of its own. It lives in log_in's frame, and its members are
// the locals the steps share. The order of the transactions and of the
// hashing is the timing's: a known and an unknown address take the same
// steps up to the answer.
class Login {
 public:
  Login(AuthContext& ctx, const std::string& email, std::string& password,
        const SessionOrigin& origin, const EventSource& source, const SecondFactorInput& second,
        const ConsoleLogin* console)
      : ctx_(ctx),
        policy_(ctx.policy),
        email_(email),
        password_(password),
        origin_(origin),
        source_(source),
        second_(second),
        console_(console),
        email_key_(login_email_key(email)),
        // The client's own counter, and for IPv6 its /56's and /48's.
        per_client_(client_counters(ClientCounterKind::login, origin.client_address,
                                    policy_.login_failures_per_client, policy_.ipv6_aggregates)) {}

  boost::asio::awaitable<LoginOutcome> run() {
    // 0. A place in the hashing pool first: a login the pool cannot take is
    //    answered 503 before it costs a database write. Under a login flood
    //    most logins are these, and they then hold no memory and no fsync
    //    while they wait for nothing
    //    (docs/design/performance-choices.md#a-place-in-the-hashing-pool-first).
    std::optional<HashingPool::Place> place = ctx_.hashing.reserve();
    if (!place) co_return ended(LoginOutcome::Kind::busy);

    // 1. Throttle, and count this attempt as a failure up front. Reserving
    //    the failure before hashing keeps the limit exact even when an
    //    attacker sends many guesses at once; it is released if the
    //    password matches.
    started_ = now_millis();
    auto reserve = [this](Transaction& tx) { reserve_failure(tx); };
    StoreStatus status = co_await ctx_.db.write(reserve);
    if (status != StoreStatus::ok) co_return std::move(outcome_);
    if (!reserved_.verdict.allowed) co_return throttled();

    // 2. One full verification, against a dummy hash for an unknown e-mail,
    //    so both failures cost the work of a hash; a failure is then
    //    answered at the floor, so both take the same time whatever the
    //    stored hash.
    std::optional<std::string> stored_hash;
    if (user_) stored_hash = user_->password_hash;
    VerifyResult verified = co_await ctx_.hashing.verify(*place, password_, stored_hash);
    verified_ = std::move(verified);
    if (!user_ || !verified_.matches) {
      // Its own commit: the failure was counted before the hash, when it
      // was not known to be one (a crash in between leaves it counted,
      // unrecorded).
      auto record = [this](Transaction& tx) { record_failure(tx); };
      co_await ctx_.db.write(record);
      co_await wait_out_floor(verified_);
      co_return ended(LoginOutcome::Kind::invalid_credentials);  // the reservation stays
    }
    if (user_->disabled) {
      // Not a failed guess (403, not 401): do not count it.
      auto release = [this](Transaction& tx) { release_disabled(tx); };
      StoreStatus released = co_await ctx_.db.write(release);
      co_return ended(released == StoreStatus::ok ? LoginOutcome::Kind::disabled
                                                  : LoginOutcome::Kind::unavailable);
    }

    // 3. Success: the second factor, if the account has one (its step or
    //    recovery code taken by this commit), then clear the count, upgrade
    //    an outdated hash, open a session, unless the account changed while
    //    we were hashing.
    session_ = new_session(user_->id, now_millis(), policy_.session_lifetime, origin_);
    if (console_ != nullptr) console_token_ = new_secret_token(kConsoleTokenPrefix);
    auto open = [this](Transaction& tx) { open_in(tx); };
    StoreStatus opened = co_await ctx_.db.write(open);
    if (opened != StoreStatus::ok) co_return std::move(outcome_);
    // A password changed meanwhile, and a wrong or missing second factor
    // (a wrong code and a missing one cost the same), are answered as late
    // as a wrong password, the same as any other 401.
    if (found_ == Found::password_changed || found_ == Found::second_factor)
      co_await wait_out_floor(verified_);
    co_return opened_outcome();
  }

 private:
  LoginOutcome ended(LoginOutcome::Kind kind) {
    outcome_.kind = kind;
    return std::move(outcome_);
  }

  // Step 1, refused.
  LoginOutcome throttled() {
    outcome_.retry_after = reserved_.verdict.retry_after;
    return ended(LoginOutcome::Kind::throttled);
  }

  // Step 1's transaction.
  void reserve_failure(Transaction& tx) {
    user_.reset();  // a transaction may run again: all anew
    // The account is read once the throttles' keys are locked (the order
    // every attempt takes them in) and they allow the attempt: a failure
    // at its hash counts as many failures as the hash costs (interface.md
    // 10.5), and a 429 looks no account up (14.1).
    auto charge = [&] {
      user_ = tx.users().by_email(email_);
      return ctx_.hashing.failure_charge(user_ ? user_->password_hash : std::nullopt);
    };
    reserved_ = reserve_login_failure(tx, email_key_, policy_.login_failures_per_email, per_client_,
                                      started_, charge);
    if (reserved_.verdict.allowed) return;
    spend_passkey_challenge(tx, second_.passkey, started_);
    record_throttled_login(tx, source_, reserved_.refused_by, email_, started_);
  }

  // Step 2's record of a failure (unknown e-mail or wrong password).
  void record_failure(Transaction& tx) {
    record_failed_login(tx, source_, user_, email_, "credentials", now_millis());
    spend_passkey_challenge(tx, second_.passkey, now_millis());
  }

  // Step 2's release of the right password of a disabled account: un-counts
  // this attempt only.
  void release_disabled(Transaction& tx) {
    reserved_.release(tx);
    record_failed_login(tx, source_, user_, email_, "disabled", now_millis());
  }

  // What step 3's transaction found.
  enum class Found { ok, disabled, password_changed, second_factor, no_key, not_operator, no_totp };

  // Step 3's answer, once its transaction committed.
  LoginOutcome opened_outcome() {
    switch (found_) {
      case Found::password_changed:
        return ended(LoginOutcome::Kind::invalid_credentials);
      case Found::disabled:
        return ended(LoginOutcome::Kind::disabled);
      case Found::second_factor:
        return ended(LoginOutcome::Kind::second_factor_required);
      case Found::not_operator:
        return ended(LoginOutcome::Kind::not_operator);
      case Found::no_totp:
        return ended(LoginOutcome::Kind::second_factor_missing);
      case Found::no_key:
        return std::move(outcome_);  // unavailable
      case Found::ok:
        break;
    }
    outcome_.user = std::move(*user_);
    outcome_.token = std::move(console_ != nullptr ? console_token_ : session_.token);
    return ended(LoginOutcome::Kind::success);
  }

  // Step 3's transaction.
  void open_in(Transaction& tx) {
    found_ = Found::ok;  // a transaction may run again: all anew
    std::optional<UserRecord> current = tx.users().by_id(user_->id);
    // Another hash than the one we verified: either a concurrent login
    // upgraded it (same password, updatedAt untouched), or the password was
    // set meanwhile (updatedAt moved): then the password we verified is no
    // longer the account's. That is a failed attempt: it stays counted, and
    // no session opens after the change that revoked them all.
    bool hash_changed = current && current->password_hash != user_->password_hash;
    const Millis now = session_.record.created_at;
    if (!current || (hash_changed && current->updated_at != user_->updated_at)) {
      found_ = Found::password_changed;
      record_failed_login(tx, source_, current, email_, "credentials", now);
      return;
    }
    if (current->disabled) {  // disabled while we were hashing: 403 (12.3.7)
      reserved_.clear_on_success(tx, email_key_);
      found_ = Found::disabled;
      record_failed_login(tx, source_, current, email_, "disabled", now);
      return;  // before the factor, so that no step or recovery code is used up
    }
    if (console_ != nullptr && !console_granted(tx, *current, now)) return;
    // The console counts the TOTP factor only (no passkeys: its origin is
    // not the relying party's).
    FactorVerdict verdict = check_second_factor(tx, ctx_.sealer, user_->id, second_, now,
                                                console_ != nullptr ? nullptr : &policy_.webauthn);
    if (console_ != nullptr && verdict.check == FactorCheck::not_enrolled) {
      refuse_right_password(tx, *current, Found::no_totp, "second_factor_missing", now);
      return;
    }
    const char* factor_used = nullptr;
    if (!factor_passes(tx, verdict, *current, now, factor_used)) return;
    if (console_ != nullptr) {
      commit_console(tx, hash_changed, factor_used, now);
    } else {
      commit_success(tx, hash_changed, verdict, factor_used, now);
    }
    current->last_login_at = session_.record.created_at;
    user_ = std::move(current);
  }

  // Step 3 for the console: the account's operator grant, its scope kept
  // for the answer.
  bool console_granted(Transaction& tx, const UserRecord& current, Millis now) {
    std::optional<OperatorRecord> grant = tx.operators().by_user(current.id);
    if (!grant) {
      refuse_right_password(tx, current, Found::not_operator, "not_operator", now);
      return false;
    }
    outcome_.operator_scope = grant->scope;
    return true;
  }

  // The right password, refused for what the account lacks: not a guess,
  // so it is not counted (as for a disabled account), but recorded.
  void refuse_right_password(Transaction& tx, const UserRecord& current, Found found,
                             const char* reason, Millis now) {
    reserved_.release(tx);
    found_ = found;
    record_failed_login(tx, source_, current, email_, reason, now);
  }

  // Step 3's second factor: false when it refuses (found_ says how), else
  // the factor used (none when the account has none).
  bool factor_passes(Transaction& tx, const FactorVerdict& verdict, const UserRecord& current,
                     Millis now, const char*& factor_used) {
    SettledFactor settled = settle_second_factor(tx, source_, verdict, reserved_, current.id, now);
    switch (settled.kind) {
      case SettledFactor::Kind::refused:
        found_ = Found::second_factor;
        outcome_.second_factors = std::move(settled.header);
        return false;
      case SettledFactor::Kind::no_key:
        found_ = Found::no_key;
        return false;
      case SettledFactor::Kind::passed:
        break;
    }
    factor_used = settled.used;
    return true;
  }

  // Step 3, all checks passed: the count cleared, the hash upgraded, the
  // session opened and the login recorded.
  void commit_success(Transaction& tx, bool hash_changed, const FactorVerdict& verdict,
                      const char* factor_used, Millis now) {
    reserved_.clear_on_success(tx, email_key_);
    // A transparent upgrade changes only the hash, not updatedAt (2.6, 4.2).
    if (!verified_.upgraded_hash.empty() && !hash_changed)
      tx.users().replace_password_hash(user_->id, verified_.upgraded_hash);
    session_.record.amr = sign_in_methods("pwd", factor_used);
    tx.sessions().insert(session_.record);
    // The admin view's lastLoginAt (interface.md 10.3); not a change of the
    // record, so updatedAt stays (2.6).
    tx.users().record_login(user_->id, session_.record.created_at);
    record_succeeded_login(tx, source_, user_->id, session_.record, verdict, factor_used,
                           "password", now);
  }

  // Step 3 for the console, all checks passed: the count cleared, the hash
  // upgraded, a console session opened (interface.md 21.2) and recorded.
  void commit_console(Transaction& tx, bool hash_changed, const char* factor_used, Millis now) {
    reserved_.clear_on_success(tx, email_key_);
    if (!verified_.upgraded_hash.empty() && !hash_changed)
      tx.users().replace_password_hash(user_->id, verified_.upgraded_hash);
    tx.operators().insert_session({.token_digest = sha256(console_token_),
                                   .user_id = user_->id,
                                   .created_at = now,
                                   .idle_until = now + console_->idle.count(),
                                   .expires_at = now + console_->lifetime.count()});
    record_event(
        tx, source_, "console.signed_in", user_->id,
        {{"scope", outcome_.operator_scope},
         {"secondFactor", factor_used != nullptr ? nlohmann::json(factor_used) : nlohmann::json()}},
        now);
  }

  AuthContext& ctx_;
  const AuthPolicy& policy_;
  const std::string& email_;
  std::string& password_;
  const SessionOrigin& origin_;
  const EventSource& source_;
  const SecondFactorInput& second_;
  const ConsoleLogin* console_;  // null: a login of the API
  const std::string email_key_;
  const std::vector<ThrottleCounter> per_client_;

  Millis started_ = 0;              // step 1
  ReservedFailure reserved_;        // step 1
  std::optional<UserRecord> user_;  // step 1, and step 3's current record
  VerifyResult verified_;           // step 2
  IssuedSession session_;           // step 3
  std::string console_token_;       // step 3, a console sign-in
  Found found_ = Found::ok;         // step 3
  LoginOutcome outcome_;
};

}  // namespace

boost::asio::awaitable<LoginOutcome> log_in(AuthContext& ctx, const std::string& email,
                                            std::string& password, const SessionOrigin& origin,
                                            const EventSource& source,
                                            const SecondFactorInput& second,
                                            const ConsoleLogin* console) {
  Login login(ctx, email, password, origin, source, second, console);
  LoginOutcome outcome = co_await login.run();
  co_return outcome;
}

}  // namespace authd
