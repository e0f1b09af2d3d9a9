// Passwordless sign-in with a passkey (interface.md 16.3): its options
// and the assertion's check; the rest of the passkey flows are
// auth/second_factor/passkeys.cpp's.
#include "auth/second_factor/passkeys.hpp"

#include "auth/events/events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/sessions/session.hpp"
#include "core/wipe.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {

boost::asio::awaitable<PasskeyOutcome> passkey_sign_in_options(AuthContext& ctx,
                                                               const std::string& client_address) {
  PasskeyOutcome outcome;
  if (!passkeys_available(ctx)) co_return outcome;
  const std::vector<ThrottleCounter> counters =
      client_counters(ClientCounterKind::passkey, client_address,
                      ctx.policy.login_failures_per_client, ctx.policy.ipv6_aggregates);
  std::string challenge;
  auto issue = [&](Transaction& tx) {
    Millis now = now_millis();
    ThrottleVerdict verdict = count_request(tx, counters, now);
    if (!verdict.allowed) {
      outcome.kind = PasskeyOutcome::Kind::throttled;
      outcome.retry_after = verdict.retry_after;
      return;
    }
    challenge = issue_passkey_challenge(tx, ChallengePurpose::sign_in, "", now);
    outcome.kind = PasskeyOutcome::Kind::ok;
  };
  if (co_await ctx.db.write(issue) != StoreStatus::ok) {
    outcome.kind = PasskeyOutcome::Kind::unavailable;
    co_return outcome;
  }
  if (outcome.kind == PasskeyOutcome::Kind::ok)
    outcome.options = {{"challenge", base64url(challenge)},
                       {"rpId", ctx.policy.webauthn.id},
                       {"timeout", kPasskeyChallengeLifetime},
                       {"userVerification", "required"},
                       {"allowCredentials", nlohmann::json::array()}};
  co_return outcome;
}

namespace {

// A sign-in whose assertion passed, of an account not disabled: its session
// opens, and the login is recorded.
void open_passkey_session(Transaction& tx, const AuthPolicy& policy, UserRecord& user,
                          const PasskeyRecord& passkey, const SessionOrigin& origin,
                          const EventSource& source, Millis now, PasskeyOutcome& outcome) {
  IssuedSession session = new_session(user.id, now, policy.session_lifetime, origin);
  session.record.amr = sign_in_methods("hwk user", nullptr);  // user verification: 16
  tx.sessions().insert(session.record);
  tx.users().record_login(user.id, now);
  record_event(tx, source, "login.succeeded", user.id,
               {{"sessionId", session.record.public_id},
                {"secondFactor", nullptr},
                {"method", "passkey"},
                {"passkeyId", passkey.id}},
               now);
  user.last_login_at = now;
  outcome.user = std::move(user);
  outcome.token = std::move(session.token);
  outcome.kind = PasskeyOutcome::Kind::ok;
}

}  // namespace

boost::asio::awaitable<PasskeyOutcome> sign_in_with_passkey(
    AuthContext& ctx, const webauthn::AssertionResponse& response, const SessionOrigin& origin,
    const EventSource& source) {
  PasskeyOutcome outcome;
  if (!passkeys_available(ctx)) co_return outcome;
  const AuthPolicy& policy = ctx.policy;
  const std::vector<ThrottleCounter> per_client =
      client_counters(ClientCounterKind::login, origin.client_address,
                      policy.login_failures_per_client, policy.ipv6_aggregates);
  auto sign_in = [&](Transaction& tx) {
    Millis now = now_millis();
    outcome.kind = PasskeyOutcome::Kind::refused;
    // Counted as a failed login of the client up front, as /login does
    // (16.3.2: of no e-mail); released on success.
    ReservedFailure reserved = reserve_client_failure(tx, per_client, now);
    if (!reserved.verdict.allowed) {
      outcome.kind = PasskeyOutcome::Kind::throttled;
      outcome.retry_after = reserved.verdict.retry_after;
      if (!count_throttled(tx, reserved.refused_by.key, now))
        record_throttled(tx, source, reserved.refused_by.key, reserved.refused_by.limit.window,
                         std::nullopt, {{"throttle", "client"}}, now);
      return;
    }
    PasskeyUse use = use_passkey(tx, policy.webauthn, response, nullptr, now);
    std::optional<UserRecord> user = std::move(use.owner);
    if (use.failed || !user) {
      outcome.failed = use.failed.value_or(webauthn::Check::credential_id);
      std::optional<std::string> user_id;
      if (user) user_id = user->id;
      record_event(tx, source, "login.failed", user_id,
                   {{"reason", "passkey"}, {"check", webauthn::check_name(*outcome.failed)}}, now);
      return;  // stays counted
    }
    reserved.release(tx);  // not a failed guess, either way from here
    if (user->disabled) {
      outcome.kind = PasskeyOutcome::Kind::disabled;
      record_event(tx, source, "login.failed", user->id, {{"reason", "disabled"}}, now);
      return;
    }
    open_passkey_session(tx, policy, *user, *use.passkey, origin, source, now, outcome);
  };
  if (co_await ctx.db.write(sign_in) != StoreStatus::ok) {
    wipe(outcome.token);
    outcome = PasskeyOutcome{};  // unavailable
  }
  co_return outcome;
}

}  // namespace authd
