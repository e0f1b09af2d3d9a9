#include "auth/oidc/introspection.hpp"

#include "auth/oidc/access_tokens.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// RFC 7662 2.2's members common to every active token; `scope` only when
// something was granted.
nlohmann::json active(std::string_view scope, std::string_view client_id, std::string_view sub,
                      Millis created_at, Millis expires_at, std::string_view issuer,
                      std::string_view resource, std::string_view token_type) {
  nlohmann::json answer = {{"active", true},
                           {"client_id", client_id},
                           {"sub", sub},
                           {"exp", expires_at / 1000},
                           {"iat", created_at / 1000},
                           {"iss", issuer},
                           {"aud", resource.empty() ? issuer : resource},
                           {"token_type", token_type}};
  if (!scope.empty()) answer["scope"] = scope;
  return answer;
}

// A token bound to a resource is that resource's to verify: another client
// learns nothing of it (17.11).
bool foreign_access_token(std::string_view resource, std::string_view client_id,
                          const OAuthClientRecord& caller) {
  return !resource.empty() && client_id != caller.id;
}

}  // namespace

bool may_introspect(const OAuthClientRecord& client) {
  return client.confidential && client.introspection;
}

nlohmann::json inactive_token() { return {{"active", false}}; }

nlohmann::json user_access_token_answer(const AccessTokenUser& found,
                                        const OAuthClientRecord& caller, std::string_view issuer,
                                        Millis now) {
  const AccessTokenRecord& t = found.token;
  if (t.expires_at <= now || found.user.disabled ||
      foreign_access_token(t.resource, t.client_id, caller))
    return inactive_token();
  return active(t.scope, t.client_id, t.user_id, t.created_at, t.expires_at, issuer, t.resource,
                "Bearer");
}

nlohmann::json client_token_answer(const ClientTokenRecord& t, const OAuthClientRecord& caller,
                                   std::string_view issuer, Millis now) {
  if (t.expires_at <= now || foreign_access_token(t.resource, t.client_id, caller))
    return inactive_token();
  // 17.7: the subject of a client_credentials token is the client.
  return active(t.scope, t.client_id, t.client_id, t.created_at, t.expires_at, issuer, t.resource,
                "Bearer");
}

nlohmann::json refresh_token_answer(const RefreshTokenRecord& t, bool account_usable,
                                    const OAuthClientRecord& caller, std::string_view issuer,
                                    Millis now) {
  // A refresh token is its client's alone (17.10): any other caller is
  // answered as for an unknown token.
  if (t.used_at || t.expires_at <= now || t.family_expires_at <= now || !account_usable ||
      t.client_id != caller.id)
    return inactive_token();
  return active(t.scope, t.client_id, t.user_id, t.created_at, t.expires_at, issuer, t.resource,
                "refresh_token");
}

boost::asio::awaitable<IntrospectionOutcome> introspect(AuthContext& ctx,
                                                        const OAuthClientRecord& caller,
                                                        const std::string& token) {
  IntrospectionOutcome outcome;
  const std::string& issuer = ctx.policy.oidc.issuer;
  Millis now = now_millis();
  // A JWT access token is stored under its jti's digest, once it verified
  // (17.9); one that does not verify is no token of authd's.
  std::optional<Sha256Digest> presented = presented_access_token_digest(ctx, token, now);
  if (!presented) {
    outcome.kind = IntrospectionOutcome::Kind::ok;
    outcome.answer = inactive_token();
    co_return outcome;
  }
  const Sha256Digest& digest = *presented;
  // Every kind by the digest, whatever token_type_hint said: the digests
  // of 256-bit tokens do not collide.
  auto work = [&](Transaction& tx) {
    if (auto user_token = tx.access_tokens().live_with_user(digest, now)) {
      outcome.answer = user_access_token_answer(*user_token, caller, issuer, now);
    } else if (auto client_token = tx.client_tokens().live(digest, now)) {
      outcome.answer = client_token_answer(*client_token, caller, issuer, now);
    } else if (auto refresh = tx.refresh_tokens().by_digest(digest)) {
      std::optional<UserRecord> user = tx.users().by_id(refresh->user_id);
      outcome.answer = refresh_token_answer(*refresh, user && !user->disabled, caller, issuer, now);
    } else {
      outcome.answer = inactive_token();
    }
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return IntrospectionOutcome{};
  outcome.kind = IntrospectionOutcome::Kind::ok;
  co_return outcome;
}

}  // namespace authd
