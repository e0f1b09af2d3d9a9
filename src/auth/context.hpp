// What the asynchronous flows of auth/ need from the running server.
#pragma once

#include "auth/policy.hpp"

namespace authd {

class Database;
class HashingPool;

struct AuthContext {
  Database& db;
  HashingPool& hashing;
  const AuthPolicy& policy;
};

}  // namespace authd
