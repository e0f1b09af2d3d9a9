// Minting access tokens (interface.md 17.9): opaque by default, RFC 9068
// JWTs for the clients registered with accessTokenFormat "jwt". Every grant
// (authorization_code, refresh_token, client_credentials) calls
// issue_access_token, then stores a row under IssuedAccessToken's
// token_digest in its own transaction: the opaque token's SHA-256, or the
// JWT's jti's SHA-256, so that userinfo, introspection and revocation find
// either kind by one digest.
//
// A JWT's header is {alg, kid, typ: "at+jwt"}, alg the client's
// idTokenSignedResponseAlg, signed by the key ring of the ID tokens. Its
// claims: iss, sub, aud (the resource, or the issuer), exp, iat, jti (256
// random bits), client_id, scope, and auth_time for a user's token.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "auth/context.hpp"
#include "store/areas/oauth_clients.hpp"
#include "store/areas/oauth_grants.hpp"

namespace authd {

// What one access token is for.
struct AccessTokenClaims {
  std::string subject;              // the user id; the client id for client_credentials
  std::string scope;                // granted, space-separated
  std::string resource;             // RFC 8707; empty: the audience is the issuer
  std::optional<Millis> auth_time;  // a user's token: when the authd session signed in
};

struct IssuedAccessToken {
  std::string token;            // what the client gets: never stored, never logged
  Sha256Digest token_digest{};  // the row's key: sha256(opaque token) or sha256(jti)
  Millis created_at = 0;
  Millis expires_at = 0;  // created_at + --oidc-access-token-ttl
  bool jwt = false;
};

// A new access token of `client`'s format, issued at `now`. Throws
// std::runtime_error when a JWT is due and the key ring cannot sign
// (ctx.signing_keys null or without a key of the client's alg).
IssuedAccessToken issue_access_token(const AuthContext& ctx, const OAuthClientRecord& client,
                                     const AccessTokenClaims& claims, Millis now);

// What a user's access token is issued from: a code's exchange (17.6) or
// a refresh (17.10). grant_digest is the code's digest (the refresh
// family's too), with which a reuse revokes the token.
struct UserAccessGrant {
  std::string user_id;
  std::string scope;
  std::string resource;
  Millis auth_time = 0;
  Sha256Digest grant_digest{};
  std::string session_public_id;
};

// A user's access token of `client`'s format: the token for the client
// into `token`, and the row to store. Nothing (logged as
// access_token_not_signed) when a JWT is due and the key ring cannot sign.
std::optional<AccessTokenRecord> issue_user_access_token(const AuthContext& ctx,
                                                         const OAuthClientRecord& client,
                                                         const UserAccessGrant& grant, Millis now,
                                                         std::string& token);

// The digest a presented access token is stored under: for a JWT, after it
// verified (auth/oidc/jwt_verify.hpp: authd's key ring, typ at+jwt, iss,
// exp), sha256 of its jti; for an opaque token of authd's (the prefix
// authdat_ or authdrf_), sha256 of the text. Nothing when the text is a JWT
// that does not verify, or any other text (a bare jti above all).
std::optional<Sha256Digest> presented_access_token_digest(const AuthContext& ctx,
                                                          std::string_view token, Millis now);

// Whether `token` has the shape of a compact JWS (three base64url parts):
// authd's opaque tokens never hold a '.'.
bool looks_like_jwt(std::string_view token);

// RFC 8707 2: a resource indicator is one absolute URI without a fragment
// (and, here, printable ASCII of at most 2048 bytes).
bool is_resource_indicator(std::string_view uri);

}  // namespace authd
