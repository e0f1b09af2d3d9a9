// The console's operators and their sessions (interface.md 21.2): which
// accounts may sign in to the console and with which scope, and the
// console sessions, each stored only as the SHA-256 digest of its token.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class OperatorStore {
 public:
  virtual ~OperatorStore() = default;

  // Grants the console, or changes the scope of an existing grant.
  virtual void grant(const OperatorRecord& grant) = 0;
  // Removes the grant and the account's console sessions; false when the
  // account had no grant.
  virtual bool revoke(std::string_view user_id) = 0;
  virtual std::optional<OperatorRecord> by_user(std::string_view user_id) = 0;
  virtual std::vector<OperatorRecord> list() = 0;  // by grant time

  virtual void insert_session(const ConsoleSessionRecord& session) = 0;
  virtual std::optional<ConsoleSessionRecord> session_by_digest(const Sha256Digest& digest) = 0;
  // Moves the session's idle end (each use of the console).
  virtual void touch_session(const Sha256Digest& digest, Millis idle_until) = 0;
  virtual bool end_session(const Sha256Digest& digest) = 0;
  // Housekeeping: console sessions idle or expired at `now`.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
