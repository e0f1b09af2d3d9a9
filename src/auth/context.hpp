// What the asynchronous flows of auth/ need from the running server.
#pragma once

#include "auth/policy.hpp"

namespace authd {

class Database;
class HashingPool;
class SecretSealer;
class SigningKeys;

struct AuthContext {
  Database& db;
  HashingPool& hashing;
  const AuthPolicy& policy;
  // Seals and opens TOTP secrets (interface.md 12.2); null when no secret
  // key is configured (PostgreSQL without --secret-key-file): enrolment and
  // the logins of accounts with a factor then answer 503.
  const SecretSealer* sealer = nullptr;
  // The OpenID provider's key ring (interface.md 17.12); null when --oidc
  // is off.
  SigningKeys* signing_keys = nullptr;
};

}  // namespace authd
