// What the asynchronous flows of auth/ need from the running server.
#pragma once

#include <functional>

#include "auth/policy.hpp"

namespace authd {

class Database;
class HashingPool;

struct AuthContext {
  Database& db;
  HashingPool& hashing;
  const AuthPolicy& policy;
  std::function<void()> mail_enqueued;  // wakes the outbox worker
};

}  // namespace authd
