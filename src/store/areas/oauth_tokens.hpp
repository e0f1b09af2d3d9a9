// The token lifecycle's store areas (interface.md 17.7, 17.10, 17.11):
// refresh tokens, rotated on every use, and the access tokens of the
// client_credentials grant, which belong to a client and no user. Every
// token is kept only as its SHA-256 digest: each is 256 random bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/records.hpp"

namespace authd {

// A refresh token (17.10). Its family is every token rotated from one
// authorization code, named by that code's digest: a reused code (17.6)
// and a reused refresh token both revoke the whole family, and the access
// tokens issued from it (whose grant_digest is the same digest).
struct RefreshTokenRecord {
  Sha256Digest token_digest{};
  Sha256Digest family_digest{};  // the authorization code's digest
  std::string client_id;
  std::string user_id;
  std::string scope;              // granted scopes, space-separated
  std::string resource;           // RFC 8707; empty: the issuer
  std::string session_public_id;  // the authd session the family began in (the ID token's sid)
  Millis auth_time = 0;           // when that session signed in
  std::string amr;                // RFC 8176 methods, space-separated
  Millis created_at = 0;          // this token's issue
  Millis expires_at = 0;          // idle end: created_at + --oidc-refresh-idle, capped below
  Millis family_expires_at = 0;   // absolute end: the family's start + --oidc-refresh-max
  std::optional<Millis> used_at;  // set when rotated; presented again, it is a reuse
};

class RefreshTokenStore {
 public:
  virtual ~RefreshTokenStore() = default;

  virtual void insert(const RefreshTokenRecord& token) = 0;
  // Used or not, expired or not, until pruned. In a write transaction on
  // PostgreSQL the token's user row and then the token's row are locked
  // (that order, as every writer of a user's tokens takes them), so that of
  // two concurrent rotations of one token one wins.
  virtual std::optional<RefreshTokenRecord> by_digest(const Sha256Digest& digest) = 0;
  // Marks the token used at `now` unless it already was: true when this
  // call marked it (one statement: UPDATE ... WHERE used_at IS NULL).
  virtual bool mark_used(const Sha256Digest& digest, Millis now) = 0;
  // Each returns the tokens removed (used ones included).
  virtual std::int64_t revoke_family(const Sha256Digest& family_digest) = 0;
  virtual std::int64_t revoke_of_user(std::string_view user_id) = 0;
  virtual std::int64_t revoke_of_user_and_client(std::string_view user_id,
                                                 std::string_view client_id) = 0;
  virtual std::int64_t revoke_of_client(std::string_view client_id) = 0;
  // Removes the tokens whose family_expires_at has passed.
  virtual std::int64_t prune(Millis now) = 0;
};

// An access token of the client_credentials grant (17.7): `sub` is the
// client.
struct ClientTokenRecord {
  Sha256Digest token_digest{};
  std::string client_id;
  std::string scope;     // space-separated
  std::string resource;  // RFC 8707; empty: the issuer
  Millis created_at = 0;
  Millis expires_at = 0;
};

class ClientTokenStore {
 public:
  virtual ~ClientTokenStore() = default;

  virtual void insert(const ClientTokenRecord& token) = 0;
  // The token when it exists and has not expired at `now`.
  virtual std::optional<ClientTokenRecord> live(const Sha256Digest& digest, Millis now) = 0;
  // True when a token was removed.
  virtual bool revoke(const Sha256Digest& digest) = 0;
  virtual std::int64_t revoke_of_client(std::string_view client_id) = 0;
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
