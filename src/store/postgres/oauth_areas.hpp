// PostgreSQL's areas of the OpenID provider (interface.md 17): clients,
// waiting authorization requests, codes, access, client and refresh tokens,
// consents and signing keys, each implemented in a file of its own
// (oauth_clients.cpp, authorization_requests.cpp, ...). In a header of
// their own: transaction.hpp holds them as members.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/transaction.hpp"

// The start of a write transaction's read of a user's token or code by its
// digest ($1), up to the columns: the row's user is locked first (a user's
// row before its token's, transaction.hpp), then the row, in one round
// trip. The CTE is materialized, so that its lock is taken as the CTE is
// read, before the outer FOR UPDATE OF <table>; when the user's row was
// held (a password change deleting the user's tokens), the row is then
// read as committed by that holder (READ COMMITTED re-reads a locked row),
// or not at all when it was deleted.
#define AUTHD_LOCK_OWNER_THEN(table, digest_column)                                         \
  "WITH owner AS MATERIALIZED (SELECT id FROM users WHERE id = (SELECT user_id FROM " table \
  " WHERE " digest_column " = $1) FOR UPDATE) SELECT "

namespace authd::postgres {

class Connection;

class OAuthClients final : public OAuthClientStore {
 public:
  explicit OAuthClients(Connection& db) : db_(db) {}
  void insert(const OAuthClientRecord& client) override;
  std::optional<OAuthClientRecord> by_id(std::string_view id) override;
  std::vector<OAuthClientRecord> list() override;
  bool update(const OAuthClientRecord& client) override;
  bool remove(std::string_view id) override;

 private:
  Connection& db_;
};

class AuthorizationRequests final : public AuthorizationRequestStore {
 public:
  explicit AuthorizationRequests(Connection& db) : db_(db) {}
  void insert(const AuthorizationRequestRecord& request) override;
  std::optional<AuthorizationRequestRecord> by_id(const Sha256Digest& digest) override;
  bool remove(const Sha256Digest& digest) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class AuthorizationCodes final : public AuthorizationCodeStore {
 public:
  AuthorizationCodes(Connection& db, bool locking) : db_(db), locking_(locking) {}
  void insert(const AuthorizationCodeRecord& code) override;
  std::optional<AuthorizationCodeRecord> by_digest(const Sha256Digest& digest) override;
  bool mark_used(const Sha256Digest& digest, Millis now) override;
  void delete_of_user(std::string_view user_id) override;
  void delete_of_user_and_client(std::string_view user_id, std::string_view client_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
  bool locking_;
};

class AccessTokens final : public AccessTokenStore {
 public:
  explicit AccessTokens(Connection& db) : db_(db) {}
  void insert(const AccessTokenRecord& token) override;
  std::optional<AccessTokenUser> live_with_user(const Sha256Digest& digest, Millis now) override;
  bool revoke(const Sha256Digest& digest) override;
  std::int64_t revoke_of_grant(const Sha256Digest& grant_digest) override;
  std::int64_t revoke_of_user(std::string_view user_id) override;
  std::int64_t revoke_of_user_and_client(std::string_view user_id,
                                         std::string_view client_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class ClientTokens final : public ClientTokenStore {
 public:
  explicit ClientTokens(Connection& db) : db_(db) {}
  void insert(const ClientTokenRecord& token) override;
  std::optional<ClientTokenRecord> live(const Sha256Digest& digest, Millis now) override;
  bool revoke(const Sha256Digest& digest) override;
  std::int64_t revoke_of_client(std::string_view client_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

class RefreshTokens final : public RefreshTokenStore {
 public:
  RefreshTokens(Connection& db, bool locking) : db_(db), locking_(locking) {}
  void insert(const RefreshTokenRecord& token) override;
  std::optional<RefreshTokenRecord> by_digest(const Sha256Digest& digest) override;
  bool mark_used(const Sha256Digest& digest, Millis now) override;
  std::int64_t revoke_family(const Sha256Digest& family_digest) override;
  std::int64_t revoke_of_user(std::string_view user_id) override;
  std::int64_t revoke_of_user_and_client(std::string_view user_id,
                                         std::string_view client_id) override;
  std::int64_t revoke_of_client(std::string_view client_id) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
  bool locking_;
};

class Consents final : public ConsentStore {
 public:
  Consents(Connection& db, bool locking) : db_(db), locking_(locking) {}
  void upsert(const ConsentRecord& consent) override;
  std::optional<ConsentRecord> get(std::string_view user_id, std::string_view client_id) override;
  std::vector<ConsentListing> list_of_user(std::string_view user_id) override;
  bool remove(std::string_view user_id, std::string_view client_id) override;
  void delete_of_user(std::string_view user_id) override;

 private:
  Connection& db_;
  bool locking_;
};

class SigningKeys final : public SigningKeyStore {
 public:
  explicit SigningKeys(Connection& db) : db_(db) {}
  bool insert(const SigningKeyRecord& key) override;
  std::vector<SigningKeyRecord> list() override;
  bool retire(std::string_view kid, Millis retired_at, Millis remove_after) override;
  bool set_signs_from(std::string_view kid, Millis signs_from) override;
  bool reseal(std::string_view kid, std::string_view sealed_private) override;
  std::int64_t prune(Millis now) override;

 private:
  Connection& db_;
};

}  // namespace authd::postgres
