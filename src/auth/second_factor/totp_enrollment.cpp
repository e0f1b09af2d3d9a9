#include "auth/second_factor/totp_enrollment.hpp"

#include <optional>

#include "auth/credentials/password_proof.hpp"
#include "auth/events/notices.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/recovery_codes.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"
#include "crypto/sealed_secrets.hpp"
#include "crypto/totp.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The caller's account and its factor, as of a read of the store.
struct TotpCaller {
  std::optional<UserRecord> user;
  std::optional<TotpFactorRecord> factor;
};

// No user: the request ends with `outcome` (unavailable, or invalid_token).
boost::asio::awaitable<TotpCaller> find_totp_caller(AuthContext& ctx, const Sha256Digest& digest,
                                                    FactorOutcome& outcome) {
  TotpCaller caller;
  auto find = [&](Transaction& tx) {
    caller.user = live_session_user(tx, digest, now_millis());
    caller.factor.reset();
    if (caller.user) caller.factor = tx.second_factors().totp_of(caller.user->id);
  };
  if (co_await ctx.db.read(find) != StoreStatus::ok) {
    caller.user.reset();
    co_return caller;
  }
  if (!caller.user) outcome.kind = FactorOutcome::Kind::invalid_token;
  co_return caller;
}

// The reservation of the proof's attempt (auth/credentials/password_proof.hpp), or
// nothing when the attempt may not go on: the request ends with `outcome`.
boost::asio::awaitable<std::optional<ReservedFailure>> reserve_attempt(
    AuthContext& ctx, const UserRecord& user, const std::string& client_address,
    FactorOutcome& outcome) {
  PasswordProof proof = co_await reserve_proof_attempt(ctx, user, client_address);
  if (proof.kind == PasswordProof::Kind::right) co_return proof.reserved;
  if (proof.kind == PasswordProof::Kind::throttled) {
    outcome.kind = FactorOutcome::Kind::throttled;
    outcome.retry_after = proof.retry_after;
  }
  co_return std::nullopt;
}

}  // namespace

boost::asio::awaitable<FactorOutcome> enroll_totp(AuthContext& ctx, const std::string& token,
                                                  std::string& password,
                                                  const EventSource& source) {
  WipeOnExit wipe_password(password);
  const Sha256Digest digest = sha256(token);
  FactorOutcome outcome;
  TotpCaller caller = co_await find_totp_caller(ctx, digest, outcome);
  if (!caller.user) co_return outcome;
  PasswordProof proof = co_await prove_password(ctx, *caller.user, password, source.client_address);
  if (stopped_by(proof, outcome)) co_return outcome;
  const ReservedFailure* reserved = &proof.reserved;

  std::string secret = new_totp_secret();
  WipeOnExit wipe_secret(secret);
  const std::string user_id = caller.user->id;
  std::string sealed =
      ctx.sealer != nullptr ? ctx.sealer->seal(secret, totp_seal_context(user_id)) : std::string();
  const std::string email_key = login_email_key(caller.user->email);
  auto put = [&](Transaction& tx) {
    outcome.kind = FactorOutcome::Kind::unavailable;
    if (sealed.empty()) {  // no secret key: nothing can be stored
      reserved->release(tx);
      return;
    }
    if (!live_session_user(tx, digest, now_millis())) {
      outcome.kind = FactorOutcome::Kind::invalid_token;
      return;
    }
    // The password was right: whatever follows, not a failed guess.
    reserved->clear_on_success(tx, email_key);
    if (!tx.second_factors().put_pending_totp(TotpFactorRecord{user_id, sealed, now_millis()})) {
      outcome.kind = FactorOutcome::Kind::conflict;
      return;
    }
    outcome.kind = FactorOutcome::Kind::ok;
  };
  if (co_await ctx.db.write(put) != StoreStatus::ok) {
    outcome.kind = FactorOutcome::Kind::unavailable;
    co_return outcome;
  }
  if (outcome.kind == FactorOutcome::Kind::ok) {
    outcome.secret_base32 = base32_secret(secret);
    outcome.otpauth_uri =
        otpauth_uri(ctx.policy.mfa_issuer, caller.user->email, outcome.secret_base32);
  }
  co_return outcome;
}

boost::asio::awaitable<FactorOutcome> confirm_totp(AuthContext& ctx, const std::string& token,
                                                   std::string& code, const EventSource& source) {
  WipeOnExit wipe_code(code);
  const Sha256Digest digest = sha256(token);
  FactorOutcome outcome;
  TotpCaller caller = co_await find_totp_caller(ctx, digest, outcome);
  if (!caller.user) co_return outcome;
  if (!caller.factor || caller.factor->confirmed()) {  // nothing pending to confirm
    outcome.kind = FactorOutcome::Kind::conflict;
    co_return outcome;
  }
  if (ctx.sealer == nullptr) co_return outcome;  // unavailable
  std::optional<ReservedFailure> reserved =
      co_await reserve_attempt(ctx, *caller.user, source.client_address, outcome);
  if (!reserved) co_return outcome;

  std::vector<std::string> codes = new_recovery_codes();
  const std::vector<Sha256Digest> code_digests = recovery_code_digests(codes);
  const std::string user_id = caller.user->id;
  const std::string email_key = login_email_key(caller.user->email);
  auto confirm = [&](Transaction& tx) {
    outcome.kind = FactorOutcome::Kind::conflict;
    std::optional<UserRecord> user = live_session_user(tx, digest, now_millis());
    if (!user) {
      outcome.kind = FactorOutcome::Kind::invalid_token;
      return;
    }
    std::optional<TotpFactorRecord> factor = tx.second_factors().totp_of(user_id);
    if (!factor || factor->confirmed()) {
      reserved->release(tx);  // confirmed or removed meanwhile: no guess was made
      return;
    }
    std::optional<std::int64_t> step =
        totp_code_step(tx, *ctx.sealer, *factor, code, now_millis(), false);
    if (!step) {
      outcome.kind = FactorOutcome::Kind::wrong_proof;  // stays counted
      return;
    }
    if (!tx.second_factors().confirm_totp(user_id, factor->sealed_secret, *step, now_millis()))
      return;  // conflict
    tx.second_factors().replace_recovery_codes(user_id, code_digests);
    reserved->clear_on_success(tx, email_key);
    record_event(tx, source, "mfa.enabled", user_id, {{"factor", "totp"}}, now_millis());
    queue_notice(tx, ctx.policy.notify, {NoticeTopic::mfa_enabled, NoticeActor::self}, *user,
                 user->email, now_millis());
    outcome.kind = FactorOutcome::Kind::ok;
  };
  if (co_await ctx.db.write(confirm) != StoreStatus::ok) {
    outcome.kind = FactorOutcome::Kind::unavailable;
    co_return outcome;
  }
  if (outcome.kind == FactorOutcome::Kind::ok) outcome.recovery_codes = std::move(codes);
  co_return outcome;
}

namespace {

// POST /mfa/totp/remove (`renew` false) and /mfa/recovery-codes (`renew`
// true): the proof, then the factor removed or a new set of codes. run()
// holds the steps' awaits, in the order they run; what a step does between
// them is a member of its own. It lives in the route's frame, and its
// members are the locals the steps share.
class TotpProof {
 public:
  TotpProof(AuthContext& ctx, const std::string& token, std::string& code, bool renew,
            const EventSource& source)
      : ctx_(ctx), code_(code), renew_(renew), source_(source), digest_(sha256(token)) {}

  boost::asio::awaitable<FactorOutcome> run() {
    TotpCaller caller = co_await find_totp_caller(ctx_, digest_, outcome_);
    if (!caller.user) co_return std::move(outcome_);
    if (!caller.factor || !caller.factor->confirmed()) {  // no factor to remove or renew
      outcome_.kind = FactorOutcome::Kind::conflict;
      co_return std::move(outcome_);
    }
    std::optional<ReservedFailure> reserved =
        co_await reserve_attempt(ctx_, *caller.user, source_.client_address, outcome_);
    reserved_ = std::move(reserved);
    if (!reserved_) co_return std::move(outcome_);
    read_proof();
    codes_ = renew_ ? new_recovery_codes() : std::vector<std::string>{};
    code_digests_ = recovery_code_digests(codes_);
    user_id_ = caller.user->id;
    email_key_ = login_email_key(caller.user->email);
    auto act = [this](Transaction& tx) { act_in(tx); };
    if (co_await ctx_.db.write(act) != StoreStatus::ok) {
      outcome_.kind = FactorOutcome::Kind::unavailable;
      co_return std::move(outcome_);
    }
    if (outcome_.kind == FactorOutcome::Kind::ok) outcome_.recovery_codes = std::move(codes_);
    co_return std::move(outcome_);
  }

 private:
  // Six digits are a TOTP code; anything else is tried as a recovery code.
  void read_proof() {
    if (code_.size() == 6 && code_.find_first_not_of("0123456789") == std::string::npos)
      proof_.otp = code_;
    else
      proof_.recovery_code = code_;
  }

  // The transaction: the proof checked, then the factor removed or the
  // codes renewed.
  void act_in(Transaction& tx) {
    Millis now = now_millis();
    std::optional<UserRecord> user = live_session_user(tx, digest_, now);
    if (!user) {
      outcome_.kind = FactorOutcome::Kind::invalid_token;
      return;
    }
    if (!proof_passes(tx, now)) return;
    if (renew_) {
      tx.second_factors().replace_recovery_codes(user_id_, code_digests_);
    } else {
      remove_factor(tx, *user, now);
    }
    reserved_->clear_on_success(tx, email_key_);
    outcome_.kind = FactorOutcome::Kind::ok;
  }

  // False when the proof does not pass: outcome_ says why.
  bool proof_passes(Transaction& tx, Millis now) {
    switch (check_second_factor(tx, ctx_.sealer, user_id_, proof_, now).check) {
      case FactorCheck::not_enrolled:  // removed meanwhile
        reserved_->release(tx);
        outcome_.kind = FactorOutcome::Kind::conflict;
        return false;
      case FactorCheck::no_key:
        reserved_->release(tx);
        outcome_.kind = FactorOutcome::Kind::unavailable;
        return false;
      case FactorCheck::refused:
        outcome_.kind = FactorOutcome::Kind::wrong_proof;  // stays counted
        return false;
      case FactorCheck::passed_with_recovery_code:
        record_recovery_code_used(tx, source_, user_id_, now);
        break;
      case FactorCheck::passed:
      case FactorCheck::passed_with_passkey:  // not offered here
        break;
    }
    return true;
  }

  void remove_factor(Transaction& tx, const UserRecord& user, Millis now) {
    // The recovery codes stay while the account has a passkey (16.5.2).
    if (tx.passkeys().count_of(user_id_) > 0)
      tx.second_factors().remove_totp(user_id_);
    else
      tx.second_factors().remove_all(user_id_);
    record_event(tx, source_, "mfa.disabled", user_id_, {{"factor", "totp"}}, now);
    queue_notice(tx, ctx_.policy.notify, {NoticeTopic::mfa_disabled, NoticeActor::self}, user,
                 user.email, now);
  }

  AuthContext& ctx_;
  std::string& code_;
  const bool renew_;
  const EventSource& source_;
  const Sha256Digest digest_;

  std::optional<ReservedFailure> reserved_;
  SecondFactorInput proof_;
  WipeOnExit wipe_otp_{proof_.otp};
  WipeOnExit wipe_recovery_{proof_.recovery_code};
  std::vector<std::string> codes_;
  std::vector<Sha256Digest> code_digests_;
  std::string user_id_;
  std::string email_key_;
  FactorOutcome outcome_;
};

boost::asio::awaitable<FactorOutcome> prove_totp_and(AuthContext& ctx, const std::string& token,
                                                     std::string& code, bool renew,
                                                     const EventSource& source) {
  WipeOnExit wipe_code(code);
  TotpProof proof(ctx, token, code, renew, source);
  FactorOutcome outcome = co_await proof.run();
  co_return outcome;
}

}  // namespace

boost::asio::awaitable<FactorOutcome> remove_totp(AuthContext& ctx, const std::string& token,
                                                  std::string& code, const EventSource& source) {
  FactorOutcome outcome = co_await prove_totp_and(ctx, token, code, false, source);
  co_return outcome;
}

boost::asio::awaitable<FactorOutcome> renew_recovery_codes(AuthContext& ctx,
                                                           const std::string& token,
                                                           std::string& code,
                                                           const EventSource& source) {
  FactorOutcome outcome = co_await prove_totp_and(ctx, token, code, true, source);
  co_return outcome;
}

}  // namespace authd
