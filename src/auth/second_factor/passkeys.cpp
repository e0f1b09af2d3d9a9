#include "auth/second_factor/passkeys.hpp"

#include "auth/credentials/password_proof.hpp"
#include "auth/events/notices.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/second_factor/recovery_codes.hpp"
#include "core/wipe.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

nlohmann::json public_key_parameters() {
  return nlohmann::json::array({{{"type", "public-key"}, {"alg", webauthn::kEs256}},
                                {{"type", "public-key"}, {"alg", webauthn::kEdDsa}}});
}

// 16.2.1's creation options, for navigator.credentials.create().
nlohmann::json creation_options(const AuthContext& ctx, const UserRecord& user,
                                const std::string& challenge,
                                const std::vector<PasskeyRecord>& registered) {
  nlohmann::json exclude = nlohmann::json::array();
  for (const PasskeyRecord& passkey : registered)
    exclude.push_back({{"type", "public-key"}, {"id", passkey.id}});
  return {{"challenge", base64url(challenge)},
          {"rp", {{"id", ctx.policy.webauthn.id}, {"name", ctx.policy.mfa_issuer}}},
          {"user",
           {{"id", base64url(user.id)},
            {"name", user.email},
            {"displayName", user.display_name.value_or(user.email)}}},
          {"pubKeyCredParams", public_key_parameters()},
          {"timeout", kPasskeyChallengeLifetime},
          {"attestation", "none"},
          {"authenticatorSelection",
           {{"residentKey", "required"},
            {"requireResidentKey", true},
            {"userVerification", "required"}}},
          {"excludeCredentials", std::move(exclude)}};
}

// The caller of a bearer route, and the passkeys the account has; no user:
// the request ends with `outcome` (unavailable, or invalid_token).
struct Caller {
  std::optional<UserRecord> user;
  std::vector<PasskeyRecord> passkeys;
};

boost::asio::awaitable<Caller> find_caller(AuthContext& ctx, const Sha256Digest& digest,
                                           PasskeyOutcome& outcome) {
  Caller caller;
  auto find = [&](Transaction& tx) {
    caller.user = live_session_user(tx, digest, now_millis());
    caller.passkeys.clear();
    if (caller.user) caller.passkeys = tx.passkeys().of_user(caller.user->id);
  };
  if (co_await ctx.db.read(find) != StoreStatus::ok) {
    caller.user.reset();
    co_return caller;
  }
  if (!caller.user) outcome.kind = PasskeyOutcome::Kind::invalid_token;
  co_return caller;
}

bool has_confirmed_totp(Transaction& tx, const std::string& user_id) {
  std::optional<TotpFactorRecord> factor = tx.second_factors().totp_of(user_id);
  return factor && factor->confirmed();
}

// 16.4.3: the account's second factor, when it has one, in the
// transaction that acts on it (its step, code or challenge taken by the same
// commit). False when the change may not go on: `outcome` says why; a
// refusal stays counted as a failed login.
bool second_factor_holds(AuthContext& ctx, Transaction& tx, const UserRecord& user,
                         const SecondFactorInput& second, const ReservedFailure& reserved,
                         const EventSource& source, Millis now, PasskeyOutcome& outcome) {
  FactorVerdict verdict =
      check_second_factor(tx, ctx.sealer, user.id, second, now, &ctx.policy.webauthn);
  switch (verdict.check) {
    case FactorCheck::refused:
      outcome.kind = PasskeyOutcome::Kind::second_factor_required;
      outcome.second_factors = second_factor_list(verdict);
      return false;
    case FactorCheck::no_key:
      reserved.release(tx);
      outcome.kind = PasskeyOutcome::Kind::unavailable;
      return false;
    case FactorCheck::passed_with_recovery_code:
      record_recovery_code_used(tx, source, user.id, now);
      return true;
    case FactorCheck::passed:
    case FactorCheck::passed_with_passkey:
    case FactorCheck::not_enrolled:
      break;
  }
  return true;
}

// POST /webauthn/register (16.2.2). run() holds the one await, the
// transaction; what the transaction does is a member per step. It lives in
// register_passkey's frame, and its members are the locals the steps share.
class PasskeyRegistration {
 public:
  PasskeyRegistration(AuthContext& ctx, const std::string& token,
                      const webauthn::RegistrationResponse& response, const std::string& name,
                      const EventSource& source)
      : ctx_(ctx),
        response_(response),
        name_(name),
        source_(source),
        digest_(sha256(token)),
        // Drawn before, kept only if this passkey is the account's first factor.
        codes_(new_recovery_codes()),
        code_digests_(recovery_code_digests(codes_)) {}

  boost::asio::awaitable<PasskeyOutcome> run() {
    auto add = [this](Transaction& tx) { add_in(tx); };
    if (co_await ctx_.db.write(add) != StoreStatus::ok)
      outcome_.kind = PasskeyOutcome::Kind::unavailable;
    if (outcome_.kind == PasskeyOutcome::Kind::ok && first_factor_) {
      outcome_.recovery_codes = std::move(codes_);
    } else {
      for (std::string& code : codes_) wipe(code);  // never shown: not kept either
    }
    co_return std::move(outcome_);
  }

 private:
  // The transaction: the response verified, then the passkey stored.
  void add_in(Transaction& tx) {
    Millis now = now_millis();
    first_factor_ = false;
    std::optional<UserRecord> user = live_session_user(tx, digest_, now);
    if (!user) {
      outcome_.kind = PasskeyOutcome::Kind::invalid_token;
      return;
    }
    std::optional<webauthn::RegistrationResult> result = verified(tx, user->id, now);
    if (!result) return;
    const std::int64_t registered = tx.passkeys().count_of(user->id);
    if (registered >= kMostPasskeys) {
      outcome_.kind = PasskeyOutcome::Kind::conflict;
      return;
    }
    first_factor_ = !has_confirmed_totp(tx, user->id) && registered == 0;
    if (!store(tx, *result, *user, now)) return;
    outcome_.kind = PasskeyOutcome::Kind::ok;
  }

  // The response checked against a challenge of this account's; nothing
  // when it fails (outcome_ says how).
  std::optional<webauthn::RegistrationResult> verified(Transaction& tx, const std::string& user_id,
                                                       Millis now) {
    // The challenge is taken whatever follows (16.6.2); it must be one
    // issued to this account for a registration.
    std::optional<std::string> expected = webauthn::challenge_of(response_.client_data_json);
    if (expected) {
      auto owner =
          tx.passkeys().take_challenge(sha256(*expected), ChallengePurpose::registration, now);
      if (!owner || *owner != user_id) expected.reset();
    }
    webauthn::RegistrationResult result =
        webauthn::verify_registration(response_, ctx_.policy.webauthn, expected);
    if (!result.failed) return result;
    outcome_.kind = PasskeyOutcome::Kind::refused;
    outcome_.failed = result.failed;
    return std::nullopt;
  }

  // The passkey stored, with the recovery codes when it is the first
  // factor; false on a conflict.
  bool store(Transaction& tx, const webauthn::RegistrationResult& result, const UserRecord& user,
             Millis now) {
    outcome_.passkey = PasskeyRecord{base64url(result.credential.id),
                                     user.id,
                                     name_,
                                     result.credential.algorithm,
                                     base64url(result.credential.public_key),
                                     result.credential.sign_count,
                                     result.backed_up,
                                     now,
                                     std::nullopt};
    if (!tx.passkeys().insert(outcome_.passkey)) {
      outcome_.kind = PasskeyOutcome::Kind::conflict;
      return false;
    }
    if (first_factor_) tx.second_factors().replace_recovery_codes(user.id, code_digests_);
    record_event(tx, source_, "mfa.enabled", user.id,
                 {{"factor", "webauthn"}, {"passkeyId", outcome_.passkey.id}}, now);
    queue_notice(tx, ctx_.policy.notify, {NoticeTopic::passkey_added, NoticeActor::self}, user,
                 user.email, now);
    return true;
  }

  AuthContext& ctx_;
  const webauthn::RegistrationResponse& response_;
  const std::string& name_;
  const EventSource& source_;
  const Sha256Digest digest_;
  std::vector<std::string> codes_;
  const std::vector<Sha256Digest> code_digests_;
  bool first_factor_ = false;
  PasskeyOutcome outcome_;
};

}  // namespace

bool passkeys_available(const AuthContext& ctx) { return !ctx.policy.webauthn.id.empty(); }

boost::asio::awaitable<PasskeyOutcome> passkey_registration_options(AuthContext& ctx,
                                                                    const std::string& token,
                                                                    std::string& password,
                                                                    const SecondFactorInput& second,
                                                                    const EventSource& source) {
  WipeOnExit wipe_password(password);
  PasskeyOutcome outcome;
  if (!passkeys_available(ctx)) co_return outcome;
  const Sha256Digest digest = sha256(token);
  Caller caller = co_await find_caller(ctx, digest, outcome);
  if (!caller.user) co_return outcome;
  PasswordProof proof = co_await prove_password(ctx, *caller.user, password, source.client_address);
  if (stopped_by(proof, outcome)) co_return outcome;

  const std::string email_key = login_email_key(caller.user->email);
  std::string challenge;
  auto issue = [&](Transaction& tx) {
    Millis now = now_millis();
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    if (!user) {
      outcome.kind = PasskeyOutcome::Kind::invalid_token;
      return;
    }
    if (!second_factor_holds(ctx, tx, *user, second, proof.reserved, source, now, outcome)) return;
    proof.reserved.clear_on_success(tx, email_key);  // the password (and factor) were right
    if (tx.passkeys().count_of(user->id) >= kMostPasskeys) {
      outcome.kind = PasskeyOutcome::Kind::conflict;
      return;
    }
    challenge = issue_passkey_challenge(tx, ChallengePurpose::registration, user->id, now);
    caller.passkeys = tx.passkeys().of_user(user->id);
    caller.user = std::move(user);
    outcome.kind = PasskeyOutcome::Kind::ok;
  };
  if (co_await ctx.db.write(issue) != StoreStatus::ok) {
    outcome.kind = PasskeyOutcome::Kind::unavailable;
    co_return outcome;
  }
  if (outcome.kind == PasskeyOutcome::Kind::ok)
    outcome.options = creation_options(ctx, *caller.user, challenge, caller.passkeys);
  co_return outcome;
}

boost::asio::awaitable<PasskeyOutcome> register_passkey(
    AuthContext& ctx, const std::string& token, const webauthn::RegistrationResponse& response,
    const std::string& name, const EventSource& source) {
  if (!passkeys_available(ctx)) co_return PasskeyOutcome{};
  PasskeyRegistration registration(ctx, token, response, name, source);
  PasskeyOutcome outcome = co_await registration.run();
  co_return outcome;
}

boost::asio::awaitable<PasskeyOutcome> list_passkeys(AuthContext& ctx, const std::string& token) {
  PasskeyOutcome outcome;
  if (!passkeys_available(ctx)) co_return outcome;
  Caller caller = co_await find_caller(ctx, sha256(token), outcome);
  if (!caller.user) co_return outcome;
  outcome.passkeys = std::move(caller.passkeys);
  outcome.kind = PasskeyOutcome::Kind::ok;
  co_return outcome;
}

boost::asio::awaitable<PasskeyOutcome> remove_passkey(AuthContext& ctx, const std::string& token,
                                                      const std::string& passkey_id,
                                                      std::string& password,
                                                      const SecondFactorInput& second,
                                                      const EventSource& source) {
  WipeOnExit wipe_password(password);
  PasskeyOutcome outcome;
  if (!passkeys_available(ctx)) co_return outcome;
  const Sha256Digest digest = sha256(token);
  Caller caller = co_await find_caller(ctx, digest, outcome);
  if (!caller.user) co_return outcome;
  bool owned = false;
  for (const PasskeyRecord& passkey : caller.passkeys) owned = owned || passkey.id == passkey_id;
  if (!owned) {  // before the password: the caller's own list says nothing new
    outcome.kind = PasskeyOutcome::Kind::not_found;
    co_return outcome;
  }
  PasswordProof proof = co_await prove_password(ctx, *caller.user, password, source.client_address);
  if (stopped_by(proof, outcome)) co_return outcome;

  const std::string email_key = login_email_key(caller.user->email);
  auto remove = [&](Transaction& tx) {
    Millis now = now_millis();
    std::optional<UserRecord> user = live_session_user(tx, digest, now);
    if (!user) {
      outcome.kind = PasskeyOutcome::Kind::invalid_token;
      return;
    }
    if (!second_factor_holds(ctx, tx, *user, second, proof.reserved, source, now, outcome)) return;
    proof.reserved.clear_on_success(tx, email_key);  // the password (and factor) were right
    if (!tx.passkeys().remove(user->id, passkey_id)) {
      outcome.kind = PasskeyOutcome::Kind::not_found;  // removed meanwhile
      return;
    }
    // The recovery codes live as long as some second factor does.
    if (tx.passkeys().count_of(user->id) == 0 && !has_confirmed_totp(tx, user->id))
      tx.second_factors().replace_recovery_codes(user->id, {});
    record_event(tx, source, "mfa.disabled", user->id,
                 {{"factor", "webauthn"}, {"passkeyId", passkey_id}}, now);
    queue_notice(tx, ctx.policy.notify, {NoticeTopic::passkey_removed, NoticeActor::self}, *user,
                 user->email, now);
    outcome.kind = PasskeyOutcome::Kind::ok;
  };
  if (co_await ctx.db.write(remove) != StoreStatus::ok)
    outcome.kind = PasskeyOutcome::Kind::unavailable;
  co_return outcome;
}

}  // namespace authd
