#include "auth/oidc/refresh_grant.hpp"

#include <algorithm>

#include "auth/oidc/access_tokens.hpp"
#include "auth/oidc/claims.hpp"
#include "auth/oidc/codes.hpp"
#include "auth/oidc/signing_keys.hpp"
#include "core/log.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {

bool offline_access_granted(const OAuthClientRecord& client, std::string_view scope) {
  return is_listed(client.grant_types, "refresh_token") &&
         is_listed(split_scope(scope), "offline_access");
}

RefreshTokenRecord first_refresh_token(const OidcSettings& oidc,
                                       const AuthorizationCodeRecord& code, Millis now,
                                       std::string& token) {
  token = new_secret_token(kRefreshTokenPrefix);
  RefreshTokenRecord r;
  r.token_digest = sha256(token);
  r.family_digest = code.code_digest;  // decision 1: the family is the code's
  r.client_id = code.client_id;
  r.user_id = code.user_id;
  r.scope = code.scope;
  r.resource = code.resource;
  r.session_public_id = code.session_public_id;
  r.auth_time = code.auth_time;
  r.amr = code.amr;
  r.created_at = now;
  r.family_expires_at = now + oidc.refresh_max.count();
  r.expires_at = std::min<Millis>(now + oidc.refresh_idle.count(), r.family_expires_at);
  return r;
}

namespace {

// The scope asked for at a refresh, when it is within the family's (RFC
// 6749 6: "MUST NOT include any scope not originally granted"); the
// family's when none (or an empty one) was asked; nothing when it is
// wider.
std::optional<std::string> narrowed_scope(const std::optional<std::string>& asked,
                                          const std::string& granted) {
  if (!asked || split_scope(*asked).empty()) return granted;
  std::vector<std::string> allowed = split_scope(granted);
  std::string scope;
  for (const std::string& word : split_scope(*asked)) {
    if (!is_listed(allowed, word)) return std::nullopt;
    if (is_listed(split_scope(scope), word)) continue;
    scope += (scope.empty() ? "" : " ") + word;
  }
  return scope;
}

// One refresh, in one write transaction (17.10, decision 2): the token is
// read (locked on PostgreSQL, so that of two concurrent uses the second
// waits for the first), checked, marked used, and the next refresh token
// and an access token stored; or, used before, its family and the family's
// access tokens are revoked.
class Refresh {
 public:
  Refresh(AuthContext& ctx, const OAuthClientRecord& client, const RefreshRequest& request,
          const EventSource& source)
      : ctx_(ctx), client_(client), request_(request), source_(source) {}

  void run(Transaction& tx) {
    outcome_ = TokenOutcome{TokenOutcome::Kind::invalid_grant, {}, {}, {}, {}, 0, {}};
    std::optional<RefreshTokenRecord> token = tx.refresh_tokens().by_digest(digest_);
    // Another client's token is unknown to this one, and left alone.
    if (!token || token->client_id != client_.id) return refuse("unknown refresh token");
    if (token->used_at) return revoke_reused(tx, *token);
    if (token->expires_at <= now_ || token->family_expires_at <= now_)
      return refuse("refresh token expired");
    std::optional<std::string> scope = narrowed_scope(request_.scope, token->scope);
    if (!scope) {
      outcome_.kind = TokenOutcome::Kind::invalid_scope;
      return refuse("scope wider than the one granted");
    }
    std::optional<UserRecord> user = tx.users().by_id(token->user_id);
    if (!user || user->disabled) return refuse("the account is not available");
    std::optional<AccessTokenRecord> access = new_access_token(*token, *scope);
    if (!access) return;  // unavailable: the token stays unused
    if (!tx.refresh_tokens().mark_used(digest_, now_)) return revoke_reused(tx, *token);
    tx.refresh_tokens().insert(next_refresh_token(*token));
    tx.access_tokens().insert(*access);
    outcome_.scope = *scope;
    token_ = std::move(*token);
    user_ = std::move(*user);
    outcome_.kind = TokenOutcome::Kind::ok;
  }

  // decision 3: an ID token when the scope holds openid, with the family's
  // sub, auth_time, sid and amr, and no nonce (Core 12.2).
  TokenOutcome finish() {
    if (outcome_.kind != TokenOutcome::Kind::ok) return std::move(outcome_);
    outcome_.expires_in = ctx_.policy.oidc.access_token_ttl.count() / 1000;
    if (is_listed(split_scope(outcome_.scope), "openid")) {
      AuthorizationCodeRecord grant;  // what id_token_claims reads of a grant
      grant.client_id = token_.client_id;
      grant.scope = outcome_.scope;
      grant.session_public_id = token_.session_public_id;
      grant.auth_time = token_.auth_time;
      grant.amr = token_.amr;
      nlohmann::json claims = id_token_claims(ctx_.policy.oidc, grant, user_, now_);
      outcome_.id_token = ctx_.signing_keys->sign(client_.id_token_alg, claims);
    }
    return std::move(outcome_);
  }

 private:
  void refuse(const char* description) { outcome_.description = description; }

  void revoke_reused(Transaction& tx, const RefreshTokenRecord& token) {
    // The refresh tokens first, then the access tokens, which include a
    // concurrent rotation's (store/postgres/refresh_tokens.cpp).
    std::int64_t revoked = tx.refresh_tokens().revoke_family(token.family_digest);
    revoked += tx.access_tokens().revoke_of_grant(token.family_digest);
    record_event(tx, source_, "oauth.refresh_token_reused", token.user_id,
                 {{"clientId", client_.id}, {"revokedTokens", revoked}}, now_);
    refuse("refresh token already used");
  }

  // The family keeps its original scope, resource and absolute end.
  RefreshTokenRecord next_refresh_token(const RefreshTokenRecord& used) {
    outcome_.refresh_token = new_secret_token(kRefreshTokenPrefix);
    RefreshTokenRecord next = used;
    next.token_digest = sha256(outcome_.refresh_token);
    next.created_at = now_;
    next.expires_at =
        std::min<Millis>(now_ + ctx_.policy.oidc.refresh_idle.count(), used.family_expires_at);
    next.used_at.reset();
    return next;
  }

  // Its grant is the family: a reuse revokes it with the family (decision 1).
  // Opaque or a JWT by the client's format (17.9); nothing (the outcome
  // unavailable) when a JWT is due and the key ring cannot sign.
  std::optional<AccessTokenRecord> new_access_token(const RefreshTokenRecord& used,
                                                    const std::string& scope) {
    std::optional<AccessTokenRecord> token =
        issue_user_access_token(ctx_, client_,
                                {used.user_id, scope, used.resource, used.auth_time,
                                 used.family_digest, used.session_public_id},
                                now_, outcome_.access_token);
    if (!token) outcome_.kind = TokenOutcome::Kind::unavailable;
    return token;
  }

  AuthContext& ctx_;
  const OAuthClientRecord& client_;
  const RefreshRequest& request_;
  const EventSource& source_;
  Sha256Digest digest_ = sha256(request_.refresh_token);
  Millis now_ = now_millis();
  TokenOutcome outcome_;
  RefreshTokenRecord token_;
  UserRecord user_;
};

}  // namespace

boost::asio::awaitable<TokenOutcome> redeem_refresh_token(AuthContext& ctx,
                                                          const OAuthClientRecord& client,
                                                          const RefreshRequest& request,
                                                          const EventSource& source) {
  if (ctx.signing_keys == nullptr) co_return TokenOutcome{};
  Refresh refresh(ctx, client, request, source);
  auto work = [&](Transaction& tx) { refresh.run(tx); };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return TokenOutcome{};
  try {
    co_return refresh.finish();
  } catch (const std::exception& error) {
    // The signing keys could not sign: the token is used up, and the
    // client signs the user in again.
    log::error("id_token_not_signed", {{"reason", error.what()}});
    co_return TokenOutcome{};
  }
}

}  // namespace authd
