// What the OpenID provider hands out and remembers (interface.md 17.5-17.9):
// the authorization requests that wait while the browser signs in, the
// authorization codes, the access tokens, and the users' consents. Every
// secret (request id, code, token) is kept only as its SHA-256 digest: each
// is 256 random bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

// An authorization request waiting for the browser to sign in or consent
// (17.5): its validated parameters as JSON text, for 10 minutes.
struct AuthorizationRequestRecord {
  Sha256Digest id_digest{};
  std::string client_id;
  std::string parameters;  // JSON object, written and read by auth/oidc
  Millis created_at = 0;
  Millis expires_at = 0;
};

class AuthorizationRequestStore {
 public:
  virtual ~AuthorizationRequestStore() = default;

  virtual void insert(const AuthorizationRequestRecord& request) = 0;
  // Expired or not (the caller compares expires_at) until pruned.
  virtual std::optional<AuthorizationRequestRecord> by_id(const Sha256Digest& digest) = 0;
  // False when there was no such request (answered meanwhile).
  virtual bool remove(const Sha256Digest& digest) = 0;
  virtual std::int64_t prune(Millis now) = 0;
};

// An authorization code (17.6) and everything it was issued for.
struct AuthorizationCodeRecord {
  Sha256Digest code_digest{};
  std::string client_id;
  std::string user_id;
  std::string redirect_uri;
  std::string scope;              // granted scopes, space-separated
  std::string nonce;              // empty: none was sent
  std::string code_challenge;     // S256
  Sha256Digest session_digest{};  // the authd session (5, 13.5) it was issued under
  std::string session_public_id;  // that session's public id: the ID token's sid
  Millis auth_time = 0;           // when that session signed in
  std::string amr;                // RFC 8176 methods, space-separated
  Millis created_at = 0;
  Millis expires_at = 0;          // 60 s after created_at
  std::optional<Millis> used_at;  // set by the first exchange
  Millis keep_until = 0;          // pruned after this (kept past expiry to catch reuse)
  std::string resource;           // RFC 8707 (17.9); empty: the issuer
};

class AuthorizationCodeStore {
 public:
  virtual ~AuthorizationCodeStore() = default;

  virtual void insert(const AuthorizationCodeRecord& code) = 0;
  // In a write transaction on PostgreSQL the code's user row and then the
  // code's row are locked (that order, as every writer of a user's codes
  // takes them), so that of two concurrent exchanges of one code one wins.
  virtual std::optional<AuthorizationCodeRecord> by_digest(const Sha256Digest& digest) = 0;
  // Marks the code used at `now` unless it already was: true when this call
  // marked it (one statement: UPDATE ... WHERE used_at IS NULL).
  virtual bool mark_used(const Sha256Digest& digest, Millis now) = 0;
  virtual void delete_of_user(std::string_view user_id) = 0;
  // A withdrawn consent's (17.5): no code the client holds is exchanged.
  virtual void delete_of_user_and_client(std::string_view user_id, std::string_view client_id) = 0;
  // Removes the codes whose keep_until has passed.
  virtual std::int64_t prune(Millis now) = 0;
};

// An opaque access token (17.9).
struct AccessTokenRecord {
  Sha256Digest token_digest{};
  std::string client_id;
  std::string user_id;
  std::string scope;              // space-separated
  Sha256Digest grant_digest{};    // the code it was exchanged for (revoked with it on reuse)
  std::string session_public_id;  // the authd session behind it
  Millis created_at = 0;
  Millis expires_at = 0;
  std::string resource;  // RFC 8707 (17.9); empty: the issuer
};

// A live access token and its user, read in one statement
// (/oauth2/userinfo).
struct AccessTokenUser {
  AccessTokenRecord token;
  UserRecord user;
};

class AccessTokenStore {
 public:
  virtual ~AccessTokenStore() = default;

  virtual void insert(const AccessTokenRecord& token) = 0;
  // The token with its user when the token exists and has not expired at
  // `now`; nothing otherwise.
  virtual std::optional<AccessTokenUser> live_with_user(const Sha256Digest& digest, Millis now) = 0;
  // True when the token was removed (RFC 7009 revocation, 17.11).
  virtual bool revoke(const Sha256Digest& digest) = 0;
  // Each returns the tokens removed.
  virtual std::int64_t revoke_of_grant(const Sha256Digest& grant_digest) = 0;
  virtual std::int64_t revoke_of_user(std::string_view user_id) = 0;
  virtual std::int64_t revoke_of_user_and_client(std::string_view user_id,
                                                 std::string_view client_id) = 0;
  virtual std::int64_t prune(Millis now) = 0;
};

// What a user allowed a third-party client (17.5): the union of the scopes
// granted so far.
struct ConsentRecord {
  std::string user_id;
  std::string client_id;
  std::vector<std::string> scopes;  // sorted, each once
  Millis granted_at = 0;            // first granted
  Millis updated_at = 0;            // last widened
};

// A consent with its client's name, for GET /consents.
struct ConsentListing {
  ConsentRecord consent;
  std::string client_name;
};

class ConsentStore {
 public:
  virtual ~ConsentStore() = default;

  // Inserts, or replaces the scopes and updated_at of the user's consent
  // to the client (granted_at kept).
  virtual void upsert(const ConsentRecord& consent) = 0;
  virtual std::optional<ConsentRecord> get(std::string_view user_id,
                                           std::string_view client_id) = 0;
  // Oldest first.
  virtual std::vector<ConsentListing> list_of_user(std::string_view user_id) = 0;
  virtual bool remove(std::string_view user_id, std::string_view client_id) = 0;
  virtual void delete_of_user(std::string_view user_id) = 0;
};

}  // namespace authd
