// The verification of a sign-in mail's link or code (interface.md 19.3,
// 19.4): a login whose first factor is the mail.
#include <sodium.h>

#include <algorithm>

#include "auth/login/login_events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/mail_flows/email_signin.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/upstream/identities.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

bool same_digest(const Sha256Digest& a, const Sha256Digest& b) {
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

// One verification. run() holds the awaits; the transaction is a member of
// its own, and the members are what the steps share (as auth/login/login.cpp).
class EmailSignIn {
 public:
  EmailSignIn(AuthContext& ctx, const EmailProof& proof, const SessionOrigin& origin,
              const EventSource& source, const SecondFactorInput& second)
      : ctx_(ctx),
        policy_(ctx.policy),
        proof_(proof),
        origin_(origin),
        source_(source),
        second_(second),
        per_client_(client_counters(ClientCounterKind::login, origin.client_address,
                                    policy_.login_failures_per_client, policy_.ipv6_aggregates)) {}

  boost::asio::awaitable<EmailSigninOutcome> run() {
    // 1. The address whose failed logins this attempt counts in: the one
    //    given with a code, or the one of the link's mail (read first, so
    //    that the write below takes its locks in a login's order: the
    //    throttling keys, the account, then the mail).
    if (proof_.token) {
      token_digest_ = sha256(*proof_.token);
      auto find = [this](Transaction& tx) {
        std::optional<EmailSignInRecord> mail = tx.email_signins().by_token(token_digest_);
        email_ = mail ? mail->email : std::string();
      };
      StoreStatus found = co_await ctx_.db.read(find);
      if (found != StoreStatus::ok) co_return std::move(outcome_);
    } else {
      email_ = proof_.email;
    }

    // 2. One transaction: the throttles, the proof, the second factor, and
    //    on success the mail used up and the session opened, so that of two
    //    uses of one mail exactly one signs in.
    auto prove = [this](Transaction& tx) { prove_in(tx); };
    StoreStatus status = co_await ctx_.db.write(prove);
    if (status != StoreStatus::ok) co_return EmailSigninOutcome{};
    co_return std::move(outcome_);
  }

 private:
  void end(EmailSigninOutcome::Kind kind) { outcome_.kind = kind; }

  void prove_in(Transaction& tx) {
    outcome_ = EmailSigninOutcome{};  // a transaction may run again: all anew
    const Millis now = now_millis();
    if (!reserve(tx, now)) return;

    std::optional<UserRecord> user;
    if (!email_.empty()) user = tx.users().by_email(email_);
    std::optional<EmailSignInRecord> mail = proof_.token
                                                ? tx.email_signins().by_token(token_digest_)
                                                : tx.email_signins().by_email(email_);
    bool live = mail && mail->expires_at > now && user && mail->user_id == user->id &&
                mail->email == email_;
    if (!live || (!proof_.token && !code_matches(*mail))) {
      refuse_proof(tx, user, mail, now);
      return;
    }
    if (user->disabled) {  // not a guess: un-counted, as /login's 403
      reserved_.release(tx);
      record_failed_login(tx, source_, user, email_, "disabled", now);
      end(EmailSigninOutcome::Kind::disabled);
      return;
    }
    FactorVerdict verdict =
        check_second_factor(tx, ctx_.sealer, user->id, second_, now, &policy_.webauthn);
    SettledFactor factor = settle_second_factor(tx, source_, verdict, reserved_, user->id, now);
    if (factor.kind == SettledFactor::Kind::refused) {  // the mail stays usable
      outcome_.second_factors = std::move(factor.header);
      end(EmailSigninOutcome::Kind::second_factor_required);
      return;
    }
    if (factor.kind == SettledFactor::Kind::no_key) return;  // unavailable
    open_session(tx, *user, verdict, factor.used, now);
  }

  // The failed-login counters of the address (when there is one) and of the
  // client, counted up front as a login's are: false when they refuse.
  bool reserve(Transaction& tx, Millis now) {
    email_key_ = email_.empty() ? std::string() : login_email_key(email_);
    reserved_ = email_.empty()
                    ? reserve_client_failure(tx, per_client_, now)
                    : reserve_login_failure(tx, email_key_, policy_.login_failures_per_email,
                                            per_client_, now);
    if (reserved_.verdict.allowed) return true;
    spend_passkey_challenge(tx, second_.passkey, now);
    record_throttled_login(tx, source_, reserved_.refused_by, email_, now);
    outcome_.retry_after = reserved_.verdict.retry_after;
    end(EmailSigninOutcome::Kind::throttled);
    return false;
  }

  bool code_matches(const EmailSignInRecord& mail) const {
    if (same_digest(code_digest(ctx_.sealer, mail.token_digest, proof_.code), mail.code_digest))
      return true;
    // Minted under the previous key, before a rotation (12.2.3).
    auto previous = previous_code_digest(ctx_.sealer, mail.token_digest, proof_.code);
    return previous && same_digest(*previous, mail.code_digest);
  }

  // A wrong code, or no live mail: a failed login (the reservation stays).
  // A code counts against the address's mail, which the fifth voids; the
  // statement runs whether or not the address has one.
  void refuse_proof(Transaction& tx, const std::optional<UserRecord>& user,
                    const std::optional<EmailSignInRecord>& mail, Millis now) {
    if (!proof_.token) {
      int wrong = tx.email_signins().count_wrong_code(email_);
      if (mail && wrong >= kSigninWrongCodesPerMail)
        tx.email_signins().delete_of_user(mail->user_id);
    }
    spend_passkey_challenge(tx, second_.passkey, now);
    if (email_.empty()) {  // an unknown link names no address
      record_event(tx, source_, "login.failed", std::nullopt, {{"reason", "email_proof"}}, now);
    } else {
      record_failed_login(tx, source_, user, email_, "email_proof", now);
    }
    end(EmailSigninOutcome::Kind::invalid_proof);
  }

  // Every check passed: the count cleared, the mail (link and code) used
  // up, the address marked verified, the session opened and recorded.
  void open_session(Transaction& tx, UserRecord& user, const FactorVerdict& verdict,
                    const char* factor_used, Millis now) {
    reserved_.clear_on_success(tx, email_key_);
    tx.email_signins().delete_of_user(user.id);
    if (!user.email_verified_at) {  // the mail proved control of the address
      user.email_verified_at = now;
      user.updated_at = std::max(now, user.updated_at + 1);  // 2.6: forward only
      tx.users().update(user);
      // Links made before anyone proved it are not the owner's (18.3).
      unlink_on_first_proof(tx, source_, user.id, now);
    }
    IssuedSession session = new_session(user.id, now, policy_.session_lifetime, origin_);
    session.record.amr = sign_in_methods("otp", factor_used);
    tx.sessions().insert(session.record);
    tx.users().record_login(user.id, now);
    user.last_login_at = now;
    record_succeeded_login(tx, source_, user.id, session.record, verdict, factor_used,
                           proof_.token ? "email_link" : "email_code", now);
    outcome_.user = user;
    outcome_.token = std::move(session.token);
    end(EmailSigninOutcome::Kind::success);
  }

  AuthContext& ctx_;
  const AuthPolicy& policy_;
  const EmailProof& proof_;
  const SessionOrigin& origin_;
  const EventSource& source_;
  const SecondFactorInput& second_;
  const std::vector<ThrottleCounter> per_client_;

  Sha256Digest token_digest_{};  // step 1, with a token
  std::string email_;            // step 1
  std::string email_key_;        // step 2
  ReservedFailure reserved_;     // step 2
  EmailSigninOutcome outcome_;
};

}  // namespace

boost::asio::awaitable<EmailSigninOutcome> verify_email_signin(AuthContext& ctx,
                                                               const EmailProof& proof,
                                                               const SessionOrigin& origin,
                                                               const EventSource& source,
                                                               const SecondFactorInput& second) {
  EmailSignIn signin(ctx, proof, origin, source, second);
  EmailSigninOutcome outcome = co_await signin.run();
  co_return outcome;
}

}  // namespace authd
