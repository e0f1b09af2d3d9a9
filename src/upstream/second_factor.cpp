#include "upstream/second_factor.hpp"

#include "auth/login/login_events.hpp"
#include "auth/login/throttle.hpp"
#include "auth/second_factor/passkey_factor.hpp"
#include "auth/upstream/linking.hpp"
#include "core/wipe.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"
#include "store/transaction.hpp"

namespace authd {
namespace {

const webauthn::RelyingParty* passkeys_of(const AuthContext& ctx) {
  return ctx.policy.webauthn.id.empty() ? nullptr : &ctx.policy.webauthn;
}

// One try at a waiting flow, in one write transaction: the wait, the
// throttle, the factor, and on success the wait ended and the session
// opened, so that of two tries with one code one signs in.
class UpstreamFactor {
 public:
  UpstreamFactor(AuthContext& ctx, const Sha256Digest& binder_digest,
                 const SecondFactorInput& second, const SessionOrigin& origin,
                 const EventSource& source)
      : ctx_(ctx),
        binder_digest_(binder_digest),
        second_(second),
        origin_(origin),
        source_(source),
        per_client_(client_counters(ClientCounterKind::login, origin.client_address,
                                    ctx.policy.login_failures_per_client,
                                    ctx.policy.ipv6_aggregates)) {}

  void run(Transaction& tx) {
    out_ = UpstreamFactorOutcome{};  // a transaction may run again: all anew
    const Millis now = now_millis();
    std::optional<AwaitedSecondFactor> wait = tx.upstream_flows().awaiting(binder_digest_);
    // The address's login key before the account's row, in /login's order
    // (interface.md 8.2): the address is read first without a lock.
    std::optional<std::string> email = wait ? tx.users().email_of(wait->user_id) : std::nullopt;
    if (!wait || wait->until <= now || !email) {
      end_without_session(tx, wait, now);
      return;
    }
    const std::string email_key = login_email_key(*email);
    ReservedFailure reserved = reserve_login_failure(
        tx, email_key, ctx_.policy.login_failures_per_email, per_client_, now);
    if (!reserved.verdict.allowed) {
      spend_passkey_challenge(tx, second_.passkey, now);
      record_throttled_login(tx, source_, reserved.refused_by, *email, now);
      out_.retry_after = reserved.verdict.retry_after;
      out_.kind = UpstreamFactorOutcome::Kind::throttled;
      return;
    }
    std::optional<UserRecord> user = tx.users().by_id(wait->user_id);  // locked on PostgreSQL
    if (!user || user->email != *email) {  // erased, or its address changed, meanwhile
      reserved.release(tx);
      end_without_session(tx, wait, now);
      return;
    }
    const nlohmann::json how = {{"method", kUpstreamSignInMethod},
                                {"provider", wait->flow.provider}};
    if (user->disabled) {  // as the callback would answer: not a guess
      reserved.release(tx);
      spend_passkey_challenge(tx, second_.passkey, now);
      tx.upstream_flows().end_wait(wait->flow.state_digest);
      nlohmann::json detail = {{"reason", "disabled"}};
      detail.update(how);
      record_event(tx, source_, "login.failed", user->id, detail, now);
      out_.kind = UpstreamFactorOutcome::Kind::disabled;
      return;
    }
    FactorVerdict verdict =
        check_second_factor(tx, ctx_.sealer, user->id, second_, now, passkeys_of(ctx_));
    SettledFactor factor = settle_second_factor(tx, source_, verdict, reserved, user->id, now, how);
    if (factor.kind == SettledFactor::Kind::refused) {
      // The fifth wrong try voids the flow: the upstream must prove the
      // first factor again.
      if (tx.upstream_flows().count_wrong_try(wait->flow.state_digest) >= kUpstreamFactorTries)
        tx.upstream_flows().end_wait(wait->flow.state_digest);
      out_.second_factors = std::move(factor.header);
      out_.kind = UpstreamFactorOutcome::Kind::refused;
      return;
    }
    if (factor.kind == SettledFactor::Kind::no_key) return;  // unavailable
    reserved.clear_on_success(tx, email_key);
    tx.upstream_flows().end_wait(wait->flow.state_digest);
    open_session(tx, *user, wait->flow, verdict, factor.used, now);
  }

  UpstreamFactorOutcome& outcome() { return out_; }

 private:
  // No flow to finish (none, expired, or its account gone): the wait ends.
  void end_without_session(Transaction& tx, const std::optional<AwaitedSecondFactor>& wait,
                           Millis now) {
    if (wait) tx.upstream_flows().end_wait(wait->flow.state_digest);
    spend_passkey_challenge(tx, second_.passkey, now);
    out_.kind = UpstreamFactorOutcome::Kind::no_flow;
  }

  // 18.2.2 item 8's session, with the factor's methods after "fed" (17.8.1).
  void open_session(Transaction& tx, UserRecord& user, const UpstreamFlowRecord& flow,
                    const FactorVerdict& verdict, const char* factor_used, Millis now) {
    IssuedSession session = new_session(user.id, now, ctx_.policy.session_lifetime, origin_);
    session.record.amr = sign_in_methods("fed", factor_used);
    tx.sessions().insert(session.record);
    tx.users().record_login(user.id, now);
    user.last_login_at = now;
    nlohmann::json detail = {{"sessionId", session.record.public_id}};
    detail["secondFactor"] = factor_used != nullptr ? nlohmann::json(factor_used) : nullptr;
    if (!verdict.passkey_id.empty()) detail["passkeyId"] = verdict.passkey_id;
    detail["method"] = kUpstreamSignInMethod;
    detail["provider"] = flow.provider;
    record_event(tx, source_, "login.succeeded", user.id, detail, now);
    out_.flow = flow;
    out_.user = user;
    out_.token = std::move(session.token);
    out_.kind = UpstreamFactorOutcome::Kind::signed_in;
  }

  AuthContext& ctx_;
  const Sha256Digest& binder_digest_;
  const SecondFactorInput& second_;
  const SessionOrigin& origin_;
  const EventSource& source_;
  const std::vector<ThrottleCounter> per_client_;
  UpstreamFactorOutcome out_;
};

}  // namespace

boost::asio::awaitable<bool> await_upstream_second_factor(AuthContext& ctx,
                                                          const UpstreamFlowRecord& flow,
                                                          const std::string& user_id) {
  const Millis until =
      now_millis() + std::chrono::duration_cast<Duration>(kUpstreamFactorWait).count();
  auto work = [&](Transaction& tx) {
    tx.upstream_flows().await_second_factor(flow.state_digest, user_id, until);
  };
  co_return co_await ctx.db.write(work) == StoreStatus::ok;
}

boost::asio::awaitable<AwaitedFactors> awaited_factors(AuthContext& ctx,
                                                       const std::optional<std::string>& binder) {
  AwaitedFactors out;
  if (!binder) {
    out.kind = AwaitedFactors::Kind::no_flow;
    co_return out;
  }
  const Sha256Digest digest = sha256(*binder);
  const Millis now = now_millis();
  auto work = [&](Transaction& tx) {
    out = AwaitedFactors{AwaitedFactors::Kind::no_flow};
    std::optional<AwaitedSecondFactor> wait = tx.upstream_flows().awaiting(digest);
    if (!wait || wait->until <= now) return;
    // No input: nothing is taken, only what the account has is read.
    FactorVerdict verdict = check_second_factor(tx, ctx.sealer, wait->user_id, SecondFactorInput{},
                                                now, passkeys_of(ctx));
    out = AwaitedFactors{AwaitedFactors::Kind::ok, verdict.has_totp, verdict.has_passkeys};
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return AwaitedFactors{};
  co_return out;
}

boost::asio::awaitable<UpstreamFactorOutcome> finish_upstream_second_factor(
    AuthContext& ctx, const std::optional<std::string>& binder, const SecondFactorInput& second,
    const SessionOrigin& origin, const EventSource& source) {
  // No cookie: a digest no flow has (the page of another browser).
  const Sha256Digest digest = binder ? sha256(*binder) : Sha256Digest{};
  UpstreamFactor attempt(ctx, digest, second, origin, source);
  auto work = [&attempt](Transaction& tx) { attempt.run(tx); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) {
    wipe(attempt.outcome().token);
    co_return UpstreamFactorOutcome{};
  }
  co_return std::move(attempt.outcome());
}

}  // namespace authd
