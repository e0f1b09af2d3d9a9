#include "auth/oidc/access_tokens.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <sodium.h>
#include <nlohmann/json.hpp>

#include "auth/oidc/codes.hpp"
#include "auth/oidc/jwt_verify.hpp"
#include "auth/oidc/refresh_grant.hpp"
#include "auth/oidc/signing_keys.hpp"
#include "core/log.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

constexpr std::string_view kAccessTokenTyp = "at+jwt";  // RFC 9068 2.1
constexpr std::size_t kMaxResourceBytes = 2048;

std::string new_jti() {
  std::array<std::uint8_t, 32> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  return base64url(bytes.data(), bytes.size());
}

nlohmann::json jwt_claims(const AuthContext& ctx, const OAuthClientRecord& client,
                          const AccessTokenClaims& claims, const IssuedAccessToken& issued,
                          const std::string& jti) {
  const std::string& issuer = ctx.policy.oidc.issuer;
  nlohmann::json out = {{"iss", issuer},
                        {"sub", claims.subject},
                        {"aud", claims.resource.empty() ? issuer : claims.resource},
                        {"exp", epoch_seconds(issued.expires_at)},
                        {"iat", epoch_seconds(issued.created_at)},
                        {"jti", jti},
                        {"client_id", client.id},
                        {"scope", claims.scope}};
  if (claims.auth_time) out["auth_time"] = epoch_seconds(*claims.auth_time);
  return out;
}

// RFC 3986 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
bool has_scheme(std::string_view uri) {
  std::size_t colon = uri.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 == uri.size()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!alpha(uri.front())) return false;
  return std::all_of(uri.begin(), uri.begin() + static_cast<std::ptrdiff_t>(colon), [&](char c) {
    return alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
  });
}

}  // namespace

IssuedAccessToken issue_access_token(const AuthContext& ctx, const OAuthClientRecord& client,
                                     const AccessTokenClaims& claims, Millis now) {
  IssuedAccessToken issued;
  issued.created_at = now;
  issued.expires_at = now + ctx.policy.oidc.access_token_ttl.count();
  if (client.access_token_format != "jwt") {
    issued.token = new_secret_token(kAccessTokenPrefix);
    issued.token_digest = sha256(issued.token);
    return issued;
  }
  if (ctx.signing_keys == nullptr) throw std::runtime_error("no signing keys");
  const std::string jti = new_jti();
  issued.token = ctx.signing_keys->sign(
      client.id_token_alg, jwt_claims(ctx, client, claims, issued, jti), kAccessTokenTyp);
  issued.token_digest = sha256(jti);
  issued.jwt = true;
  return issued;
}

bool looks_like_jwt(std::string_view token) {
  return std::count(token.begin(), token.end(), '.') == 2;
}

std::optional<AccessTokenRecord> issue_user_access_token(const AuthContext& ctx,
                                                         const OAuthClientRecord& client,
                                                         const UserAccessGrant& grant, Millis now,
                                                         std::string& token) {
  IssuedAccessToken issued;
  try {
    issued = issue_access_token(ctx, client,
                                {grant.user_id, grant.scope, grant.resource, grant.auth_time}, now);
  } catch (const std::exception& error) {
    log::error("access_token_not_signed", {{"reason", error.what()}});
    return std::nullopt;
  }
  token = std::move(issued.token);
  AccessTokenRecord row;
  row.token_digest = issued.token_digest;
  row.client_id = client.id;
  row.user_id = grant.user_id;
  row.scope = grant.scope;
  row.grant_digest = grant.grant_digest;
  row.session_public_id = grant.session_public_id;
  row.created_at = issued.created_at;
  row.expires_at = issued.expires_at;
  row.resource = grant.resource;
  return row;
}

std::optional<Sha256Digest> presented_access_token_digest(const AuthContext& ctx,
                                                          std::string_view token, Millis now) {
  // An opaque token is authd's by its prefix: a JWT's jti, the digest its
  // row is stored under, is an identifier every resource server sees, and
  // alone it stands for no token (17.9).
  if (!looks_like_jwt(token)) {
    if (token.starts_with(kAccessTokenPrefix) || token.starts_with(kRefreshTokenPrefix))
      return sha256(token);
    return std::nullopt;
  }
  std::shared_ptr<const SigningKeyRing> ring =
      ctx.signing_keys != nullptr ? ctx.signing_keys->ring() : nullptr;
  if (!ring) return std::nullopt;
  std::optional<VerifiedJwt> jwt =
      verify_own_jwt(*ring, ctx.policy.oidc.issuer, token, kAccessTokenTyp, now, false);
  if (!jwt) return std::nullopt;
  auto jti = jwt->claims.find("jti");
  if (jti == jwt->claims.end() || !jti->is_string()) return std::nullopt;
  return sha256(jti->get<std::string>());
}

bool is_resource_indicator(std::string_view uri) {
  if (uri.empty() || uri.size() > kMaxResourceBytes || !has_scheme(uri)) return false;
  if (uri.find('#') != std::string_view::npos) return false;
  return std::all_of(uri.begin(), uri.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

}  // namespace authd
