// The OAuth clients area (interface.md 17.3): the applications the operator
// registered, each with its redirect URIs and what it may ask for. A
// confidential client's secret is kept only as its SHA-256 digest (the
// secret is 256 random bits), with the previous one while a rotation's
// overlap lasts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

struct OAuthClientRecord {
  std::string id;  // the client_id: a UUIDv4
  std::string name;
  bool confidential = true;  // false: a public client (PKCE is its only proof)
  std::optional<Sha256Digest> secret_digest;
  std::optional<Sha256Digest> previous_secret_digest;
  std::optional<Millis> previous_secret_until;  // the previous secret works before this
  std::vector<std::string> redirect_uris;
  std::vector<std::string> post_logout_redirect_uris;
  std::vector<std::string> grant_types;
  std::vector<std::string> scopes;
  bool first_party = false;
  std::string access_token_format = "opaque";  // or "jwt"
  std::string id_token_alg = "RS256";          // or "ES256"
  bool introspection = false;
  Millis created_at = 0;
  Millis updated_at = 0;
};

class OAuthClientStore {
 public:
  virtual ~OAuthClientStore() = default;

  virtual void insert(const OAuthClientRecord& client) = 0;
  virtual std::optional<OAuthClientRecord> by_id(std::string_view id) = 0;
  // Every client, oldest first (then by id): operators register tens, not
  // thousands.
  virtual std::vector<OAuthClientRecord> list() = 0;
  // Writes every member but `id` and `created_at`; false when no such client.
  virtual bool update(const OAuthClientRecord& client) = 0;
  // Removes the client with its waiting requests, codes, access tokens,
  // client_credentials tokens and consents; false when no such client.
  virtual bool remove(std::string_view id) = 0;
};

}  // namespace authd
