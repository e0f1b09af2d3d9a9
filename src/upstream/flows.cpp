#include "upstream/flows.hpp"

#include <sodium.h>

#include "auth/credentials/email.hpp"
#include "auth/second_factor/second_factor.hpp"
#include "core/log.hpp"
#include "core/offload.hpp"
#include "core/wipe.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"
#include "store/transaction.hpp"
#include "upstream/http_client.hpp"

namespace authd {
namespace {

// The PKCE verifier and the nonce of a flow, from its state and binder:
// 43 characters of base64url (RFC 7636 4.1), one per use.
std::string derived(std::string_view use, const std::string& state, const std::string& binder) {
  std::string input = "authd-upstream-";
  input += use;
  input += '\0';
  input += state;
  input += '\0';
  input += binder;
  Sha256Digest digest = sha256(input);
  sodium_memzero(input.data(), input.size());
  return base64url(digest.data(), digest.size());
}

std::string pkce_challenge(const std::string& verifier) {
  Sha256Digest digest = sha256(verifier);
  return base64url(digest.data(), digest.size());
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string joined;
  for (const std::string& scope : scopes) joined += (joined.empty() ? "" : " ") + scope;
  return joined;
}

std::string authorization_url(const UpstreamRegistry& registry, const UpstreamProvider& p,
                              const std::string& endpoint, const std::string& state,
                              const std::string& binder) {
  std::string url = endpoint;
  url += endpoint.find('?') == std::string::npos ? '?' : '&';
  url += "response_type=code&client_id=" + form_component(p.client_id);
  url += "&redirect_uri=" + form_component(registry.redirect_uri(p.name));
  if (!p.scopes.empty()) url += "&scope=" + form_component(join_scopes(p.scopes));
  url += "&state=" + form_component(state);
  url += "&code_challenge=" + pkce_challenge(derived("pkce", state, binder));
  url += "&code_challenge_method=S256";
  if (p.kind == UpstreamKind::oidc) url += "&nonce=" + derived("nonce", state, binder);
  return url;
}

UpstreamAccount account_of(const UpstreamProvider& p, const UpstreamIdentity& identity) {
  UpstreamAccount account;
  account.provider = p.name;
  account.subject = identity.subject;
  if (is_valid_email(identity.email)) {
    account.email = canonical_email(identity.email);
    account.email_verified = identity.email_verified;
  }
  account.display_name = identity.display_name;
  return account;
}

const char* outcome_word(UpstreamSignInOutcome outcome) {
  switch (outcome) {
    case UpstreamSignInOutcome::signup_closed:
      return "upstream_signup_closed";
    case UpstreamSignInOutcome::no_email:
      return "upstream_no_email";
    case UpstreamSignInOutcome::link_from_account:
      return "upstream_link_refused";
    case UpstreamSignInOutcome::account_disabled:
      return "disabled";
    default:
      return "upstream";
  }
}

}  // namespace

bool is_return_path(std::string_view path) {
  if (path.empty() || path.size() > 512 || path.front() != '/') return false;
  if (path.size() > 1 && (path[1] == '/' || path[1] == '\\')) return false;
  for (unsigned char c : path) {
    if (c < 0x21 || c == 0x7f || c == '\\') return false;
  }
  return true;
}

boost::asio::awaitable<UpstreamStart> start_upstream_flow(AuthContext& ctx,
                                                          UpstreamRegistry& registry,
                                                          const UpstreamProvider& provider,
                                                          const UpstreamFlowIntent& intent) {
  UpstreamStart start;
  std::optional<UpstreamEndpoints> at = registry.endpoints(provider.name);
  if (!at) {
    start.kind = UpstreamStart::Kind::not_ready;
    co_return start;
  }
  const std::string state = new_secret_token("");
  start.binder = new_secret_token("");
  const Millis now = now_millis();
  UpstreamFlowRecord record{
      sha256(state),
      sha256(start.binder),
      provider.name,
      intent.purpose,
      intent.user_id,
      intent.request_id,
      intent.return_path,
      now,
      now + std::chrono::duration_cast<Duration>(kUpstreamFlowLifetime).count(),
      std::nullopt};
  auto work = [&](Transaction& tx) { tx.upstream_flows().insert(record); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) {
    wipe(start.binder);
    co_return start;
  }
  start.location = authorization_url(registry, provider, at->authorization, state, start.binder);
  start.kind = UpstreamStart::Kind::ok;
  co_return start;
}

boost::asio::awaitable<UpstreamCallback> finish_upstream_flow(
    AuthContext& ctx, UpstreamRegistry& registry, const UpstreamProvider& provider,
    const std::string& state, const std::optional<std::string>& binder,
    const std::optional<std::string>& code) {
  UpstreamCallback result;
  const Millis now = now_millis();
  const Sha256Digest state_digest = sha256(state);
  std::optional<UpstreamFlowRecord> flow;
  auto work = [&](Transaction& tx) { flow = tx.upstream_flows().take(state_digest, now); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return result;
  using Kind = UpstreamCallback::Kind;
  if (!flow || flow->provider != provider.name) {
    result.kind = Kind::unknown_state;
    co_return result;
  }
  result.flow = *flow;
  if (flow->used_at) {
    result.kind = Kind::replayed;
  } else if (flow->expires_at <= now) {
    result.kind = Kind::expired;
  } else if (!binder || sodium_memcmp(sha256(*binder).data(), flow->binder_digest.data(),
                                      flow->binder_digest.size()) != 0) {
    result.kind = Kind::wrong_browser;
  } else if (!code) {
    result.kind = Kind::refused;
    result.refusal = "upstream_error";
  }
  if (result.kind != Kind::unavailable) co_return result;

  // The exchange blocks (libcurl): on the registry's pool.
  const std::string verifier = derived("pkce", state, *binder);
  const std::string nonce = derived("nonce", state, *binder);
  const UpstreamProvider* p = &provider;
  UpstreamRegistry* r = &registry;
  const std::string* c = &*code;
  auto exchange = [r, p, c, &verifier, &nonce] { return r->exchange(*p, *c, verifier, nonce); };
  UpstreamExchange answer = co_await run_on(registry.pool(), exchange);
  if (!answer.identity) {
    result.kind = Kind::refused;
    result.refusal = answer.refusal;
    co_return result;
  }
  result.identity = std::move(*answer.identity);
  result.tokens = std::move(answer.tokens);
  result.kind = Kind::ok;
  co_return result;
}

namespace {

// 18.5: a session opened through an upstream is "fed" (RFC 8176), and its
// login.succeeded names the provider (14.1).
void open_federated_session(Transaction& tx, const AuthPolicy& policy, const UserRecord& user,
                            const std::string& provider, const SessionOrigin& origin,
                            const EventSource& source, Millis now, UpstreamSession& out) {
  IssuedSession session = new_session(user.id, now, policy.session_lifetime, origin);
  session.record.amr = "fed";
  tx.sessions().insert(session.record);
  tx.users().record_login(user.id, now);
  nlohmann::json detail = {{"sessionId", session.record.public_id},
                           {"secondFactor", nullptr},
                           {"method", kUpstreamSignInMethod},
                           {"provider", provider}};
  record_event(tx, source, "login.succeeded", user.id, detail, now);
  out.user = user;
  out.user->last_login_at = now;
  out.token = std::move(session.token);
  out.kind = UpstreamSession::Kind::signed_in;
}

}  // namespace

boost::asio::awaitable<UpstreamSession> complete_upstream_sign_in(AuthContext& ctx,
                                                                  const UpstreamProvider& provider,
                                                                  const UpstreamIdentity& identity,
                                                                  const SessionOrigin& origin,
                                                                  const EventSource& source) {
  const UpstreamAccount account = account_of(provider, identity);
  const Millis now = now_millis();
  UpstreamSession out;
  auto work = [&](Transaction& tx) {
    out = UpstreamSession{};
    UpstreamSignIn decided = resolve_upstream_sign_in(tx, account, provider.signup, source, now);
    out.outcome = decided.outcome;
    if (!decided.user) {
      nlohmann::json detail = {{"reason", outcome_word(decided.outcome)},
                               {"method", kUpstreamSignInMethod},
                               {"provider", provider.name}};
      std::optional<std::string> user_id;
      record_event(tx, source, "login.failed", user_id, detail, now);
      out.kind = UpstreamSession::Kind::refused;
      return;
    }
    // The account's second factor still guards it: an upstream proves the
    // first factor only (docs/design/decisions/upstream-identity-providers.md).
    const webauthn::RelyingParty* passkeys =
        ctx.policy.webauthn.id.empty() ? nullptr : &ctx.policy.webauthn;
    FactorVerdict verdict =
        check_second_factor(tx, ctx.sealer, decided.user->id, SecondFactorInput{}, now, passkeys);
    if (verdict.check != FactorCheck::not_enrolled) {
      record_event(tx, source, "login.failed", decided.user->id,
                   {{"reason", "second_factor_required"},
                    {"method", kUpstreamSignInMethod},
                    {"provider", provider.name}},
                   now);
      out.user = decided.user;
      out.kind = UpstreamSession::Kind::second_factor_required;
      return;
    }
    open_federated_session(tx, ctx.policy, *decided.user, provider.name, origin, source, now, out);
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) {
    wipe(out.token);
    co_return UpstreamSession{};
  }
  co_return out;
}

boost::asio::awaitable<LinkOutcome> complete_upstream_link(AuthContext& ctx,
                                                           const UpstreamProvider& provider,
                                                           const std::string& user_id,
                                                           const UpstreamIdentity& identity,
                                                           const EventSource& source) {
  const UpstreamAccount account = account_of(provider, identity);
  LinkOutcome outcome = co_await link_identity(ctx, user_id, account, source);
  co_return outcome;
}

}  // namespace authd
