#include "auth/oidc/token_exchange.hpp"

#include "auth/oidc/access_tokens.hpp"
#include "auth/oidc/claims.hpp"
#include "auth/oidc/codes.hpp"
#include "auth/oidc/refresh_grant.hpp"
#include "auth/oidc/signing_keys.hpp"
#include "core/log.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// One exchange, in one write transaction: the code is locked (PostgreSQL),
// checked, used up, and its access token (and, with offline_access, its
// first refresh token) stored; or, used before, every token issued from it
// is revoked, the refresh family included (17.6, 17.10, oidcc-codereuse).
class Exchange {
 public:
  Exchange(AuthContext& ctx, const OAuthClientRecord& client, const CodeExchange& request,
           const EventSource& source)
      : ctx_(ctx), client_(client), request_(request), source_(source) {}

  void run(Transaction& tx) {
    outcome_ = TokenOutcome{TokenOutcome::Kind::invalid_grant, {}, {}, {}, {}, 0, {}};
    std::optional<AuthorizationCodeRecord> code = tx.authorization_codes().by_digest(digest_);
    if (!code || code->client_id != client_.id) return refuse("unknown code");
    if (code->used_at) {
      // The refresh tokens first, then the access tokens, which include a
      // concurrent rotation's (store/postgres/refresh_tokens.cpp).
      std::int64_t revoked = tx.refresh_tokens().revoke_family(digest_);
      revoked += tx.access_tokens().revoke_of_grant(digest_);
      record_event(tx, source_, "oauth.code_reused", code->user_id,
                   {{"clientId", client_.id}, {"revokedTokens", revoked}}, now_);
      return refuse("code already used");
    }
    if (code->expires_at <= now_) return refuse("code expired");
    if (code->redirect_uri != request_.redirect_uri)
      return refuse("redirect_uri differs from the authorization request's");
    if (!pkce_verifier_matches(request_.code_verifier, code->code_challenge))
      return refuse("code_verifier does not match the code_challenge");
    // 17.15: a code whose authd session ended meanwhile is void.
    std::optional<SessionRecord> session = tx.sessions().record_of(code->session_digest);
    if (!session || session->expires_at <= now_) return refuse("the sign-in session has ended");
    std::optional<UserRecord> user = tx.users().by_id(code->user_id);
    if (!user || user->disabled) return refuse("the account is not available");
    // RFC 8707 2.2, 17.9: a resource sent again must be the code's.
    if (!request_.resource.empty() && !code->resource.empty() &&
        request_.resource != code->resource) {
      outcome_.kind = TokenOutcome::Kind::invalid_target;
      return refuse("resource differs from the authorization request's");
    }
    std::optional<AccessTokenRecord> token = new_access_token(*code);
    if (!token) return;
    if (!tx.authorization_codes().mark_used(digest_, now_)) return refuse("code already used");
    tx.access_tokens().insert(*token);
    if (offline_access_granted(client_, code->scope))
      tx.refresh_tokens().insert(
          first_refresh_token(ctx_.policy.oidc, *code, now_, outcome_.refresh_token));
    code_ = std::move(*code);
    user_ = std::move(*user);
    outcome_.kind = TokenOutcome::Kind::ok;
  }

  TokenOutcome finish() {
    if (outcome_.kind != TokenOutcome::Kind::ok) return std::move(outcome_);
    outcome_.scope = code_.scope;
    outcome_.expires_in = ctx_.policy.oidc.access_token_ttl.count() / 1000;
    if (has_openid()) {
      nlohmann::json claims = id_token_claims(ctx_.policy.oidc, code_, user_, now_);
      outcome_.id_token = ctx_.signing_keys->sign(client_.id_token_alg, claims);
    }
    return std::move(outcome_);
  }

  bool has_openid() const {
    for (const std::string& scope : split_scope(code_.scope))
      if (scope == "openid") return true;
    return false;
  }

 private:
  void refuse(const char* description) { outcome_.description = description; }

  // Nothing (the outcome unavailable, the code left unused) when a JWT is
  // due and the key ring cannot sign.
  std::optional<AccessTokenRecord> new_access_token(const AuthorizationCodeRecord& code) {
    std::optional<AccessTokenRecord> token = issue_user_access_token(
        ctx_, client_,
        {code.user_id, code.scope, request_.resource.empty() ? code.resource : request_.resource,
         code.auth_time, digest_, code.session_public_id},
        now_, outcome_.access_token);
    if (!token) outcome_.kind = TokenOutcome::Kind::unavailable;
    return token;
  }

  AuthContext& ctx_;
  const OAuthClientRecord& client_;
  const CodeExchange& request_;
  const EventSource& source_;
  Sha256Digest digest_ = sha256(request_.code);
  Millis now_ = now_millis();
  TokenOutcome outcome_;
  AuthorizationCodeRecord code_;
  UserRecord user_;
};

}  // namespace

boost::asio::awaitable<TokenOutcome> exchange_code(AuthContext& ctx,
                                                   const OAuthClientRecord& client,
                                                   const CodeExchange& request,
                                                   const EventSource& source) {
  if (ctx.signing_keys == nullptr) co_return TokenOutcome{};
  Exchange exchange(ctx, client, request, source);
  auto work = [&](Transaction& tx) { exchange.run(tx); };
  // Not write_together: the exchange locks the user's row, which is not its
  // own (docs/design/performance-choices.md, "The exchange is a write of
  // its own").
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return TokenOutcome{};
  try {
    co_return exchange.finish();
  } catch (const std::exception& error) {
    // The signing keys could not sign (none loaded yet): the code is used
    // up, and the client starts again.
    log::error("id_token_not_signed", {{"reason", error.what()}});
    co_return TokenOutcome{};
  }
}

boost::asio::awaitable<UserinfoOutcome> userinfo(AuthContext& ctx, const std::string& token) {
  UserinfoOutcome outcome;
  std::optional<AccessTokenUser> found;
  Millis now = now_millis();
  // A JWT access token (17.9) is verified, then found by its jti's digest.
  std::optional<Sha256Digest> presented = presented_access_token_digest(ctx, token, now);
  if (!presented) {
    outcome.kind = UserinfoOutcome::Kind::invalid_token;
    co_return outcome;
  }
  const Sha256Digest digest = *presented;
  auto work = [&](Transaction& tx) { found = tx.access_tokens().live_with_user(digest, now); };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return outcome;
  if (!found || found->user.disabled) {
    outcome.kind = UserinfoOutcome::Kind::invalid_token;
    co_return outcome;
  }
  std::vector<std::string> scopes = split_scope(found->token.scope);
  if (std::find(scopes.begin(), scopes.end(), "openid") == scopes.end()) {
    outcome.kind = UserinfoOutcome::Kind::insufficient_scope;  // 17.15: a plain OAuth token
    co_return outcome;
  }
  outcome.kind = UserinfoOutcome::Kind::ok;
  outcome.claims = user_claims(found->user, found->token.scope).dump();
  co_return outcome;
}

}  // namespace authd
