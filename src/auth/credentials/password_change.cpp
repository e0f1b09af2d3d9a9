#include "auth/credentials/password_change.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "auth/credentials/password_rules.hpp"
#include "auth/events/notices.hpp"
#include "auth/login/throttle.hpp"
#include "auth/mail_flows/mailed_links.hpp"
#include "auth/oidc/user_tokens.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"
#include "crypto/hashing_pool.hpp"
#include "store/database.hpp"

namespace authd {

namespace {

// One change of password (interface.md 11.1). run() holds the steps'
// awaits, in the order they run; what a step does between them is a member
// of its own. It lives in change_password's frame, and its members are the
// locals the steps share.
class PasswordChange {
 public:
  PasswordChange(AuthContext& ctx, const std::string& token, std::string& current_password,
                 std::string& new_password, const EventSource& source)
      : ctx_(ctx),
        policy_(ctx.policy),
        current_password_(current_password),
        new_password_(new_password),
        source_(source),
        digest_(sha256(token)) {}

  boost::asio::awaitable<PasswordChangeOutcome> run() {
    // 1. The session, then the rule that needs the account (interface.md 3.3).
    auto find = [this](Transaction& tx) { user_ = live_session_user(tx, digest_, now_millis()); };
    StoreStatus found = co_await ctx_.db.read(find);
    if (found != StoreStatus::ok) co_return std::move(outcome_);
    if (!user_) co_return ended(PasswordChangeOutcome::Kind::invalid_token);
    if (new_password_refused()) co_return std::move(outcome_);

    // 2. A place in the hashing pool, before anything is written (as login).
    std::optional<HashingPool::Place> place = ctx_.hashing.reserve();
    if (!place) co_return ended(PasswordChangeOutcome::Kind::busy);

    // 3. The login throttles, and this attempt counted as a failed login up
    //    front (released on success), as login does: the same keys, locked
    //    in the same order, and the user's row only later (step 6), so that
    //    on PostgreSQL a login and a change of one account cannot deadlock.
    email_key_ = login_email_key(user_->email);
    per_client_ = client_counters(ClientCounterKind::login, source_.client_address,
                                  policy_.login_failures_per_client, policy_.ipv6_aggregates);
    auto reserve = [this](Transaction& tx) { reserve_failure(tx); };
    StoreStatus counted = co_await ctx_.db.write(reserve);
    if (counted != StoreStatus::ok) co_return std::move(outcome_);
    if (!reserved_.verdict.allowed) co_return throttled();

    // 4. The current password, on the hashing pool. A wrong one stays counted.
    VerifyResult verified =
        co_await ctx_.hashing.verify(*place, current_password_, user_->password_hash);
    if (!verified.matches) co_return ended(PasswordChangeOutcome::Kind::wrong_password);

    // 5. The new hash, outside any transaction.
    std::optional<std::string> phc = co_await ctx_.hashing.hash(new_password_);
    phc_ = std::move(phc);
    if (!phc_) {
      auto release = [this](Transaction& tx) { reserved_.release(tx); };
      StoreStatus released = co_await ctx_.db.write(release);
      co_return ended(released == StoreStatus::ok ? PasswordChangeOutcome::Kind::busy
                                                  : PasswordChangeOutcome::Kind::unavailable);
    }

    // 6. Apply, if the session is still live: a reset, an operator or another
    //    change may have revoked it while we were hashing.
    auto apply = [this](Transaction& tx) { apply_in(tx); };
    StoreStatus applied = co_await ctx_.db.write(apply);
    if (applied != StoreStatus::ok) co_return std::move(outcome_);
    if (!user_) co_return ended(PasswordChangeOutcome::Kind::invalid_token);
    outcome_.user = std::move(*user_);
    co_return ended(PasswordChangeOutcome::Kind::ok);
  }

 private:
  PasswordChangeOutcome ended(PasswordChangeOutcome::Kind kind) {
    outcome_.kind = kind;
    return std::move(outcome_);
  }

  // Step 1's rule that needs the account: true (outcome_ says why) when the
  // new password breaks it.
  bool new_password_refused() {
    auto problem = new_password_problem(new_password_, user_->email, "newPassword");
    if (!problem) return false;
    outcome_.kind = PasswordChangeOutcome::Kind::bad_password;
    outcome_.problem = *problem;
    return true;
  }

  // Step 3's transaction.
  void reserve_failure(Transaction& tx) {
    reserved_ = reserve_login_failure(
        tx, email_key_, policy_.login_failures_per_email, per_client_, now_millis(),
        [&] { return ctx_.hashing.failure_charge(user_->password_hash); });
  }

  // Step 3, refused.
  PasswordChangeOutcome throttled() {
    outcome_.retry_after = reserved_.verdict.retry_after;
    return ended(PasswordChangeOutcome::Kind::throttled);
  }

  // Step 6's transaction.
  void apply_in(Transaction& tx) {
    Millis now = now_millis();
    user_ = live_session_user(tx, digest_, now);
    if (!user_) return;
    now = std::max(now, user_->updated_at + 1);  // updatedAt always moves forward (2.6)
    user_->password_hash = *phc_;
    user_->updated_at = now;
    tx.users().update(*user_);
    void_mailed_links(tx, user_->id);
    tx.sessions().revoke_others_of_user(user_->id, digest_, now);
    revoke_oauth_tokens_of_user(tx, user_->id);  // 17.10
    reserved_.clear_on_success(tx, email_key_);  // as a login's success does
    record_event(tx, source_, "password.changed", user_->id, nlohmann::json::object(), now);
    queue_notice(tx, policy_.notify, {NoticeTopic::password_changed, NoticeActor::self}, *user_,
                 user_->email, now);
  }

  AuthContext& ctx_;
  const AuthPolicy& policy_;
  std::string& current_password_;
  std::string& new_password_;
  const EventSource& source_;
  const Sha256Digest digest_;

  std::optional<UserRecord> user_;           // step 1, and step 6's live record
  std::string email_key_;                    // step 3
  std::vector<ThrottleCounter> per_client_;  // step 3
  ReservedFailure reserved_;                 // step 3
  std::optional<std::string> phc_;           // step 5
  PasswordChangeOutcome outcome_;
};

}  // namespace

boost::asio::awaitable<PasswordChangeOutcome> change_password(AuthContext& ctx,
                                                              const std::string& token,
                                                              std::string& current_password,
                                                              std::string& new_password,
                                                              const EventSource& source) {
  WipeOnExit wipe_current(current_password);
  WipeOnExit wipe_new(new_password);
  PasswordChange change(ctx, token, current_password, new_password, source);
  PasswordChangeOutcome outcome = co_await change.run();
  co_return outcome;
}

}  // namespace authd
