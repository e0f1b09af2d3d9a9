// The pending sign-ups area (interface.md 11.4-11.5): at most one per
// address, stored under its verification token's digest, until the token
// is used or expires.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "store/records.hpp"

namespace authd {

class SignupStore {
 public:
  virtual ~SignupStore() = default;

  // Stores `signup` as its address's only pending one: an older one (and
  // its token) is void.
  virtual void replace(const PendingSignupRecord& signup) = 0;
  // In a write transaction on PostgreSQL the row is locked until the
  // commit, so that of two concurrent uses of one token one wins.
  virtual std::optional<PendingSignupRecord> by_digest(const Sha256Digest& digest) = 0;
  // The address's pending sign-up, live or not.
  virtual std::optional<PendingSignupRecord> by_email(std::string_view canonical_email) = 0;
  virtual void remove(const Sha256Digest& digest) = 0;
  virtual void remove_of_email(std::string_view canonical_email) = 0;  // erasure
  // Removes the sign-ups expired at `now`; returns the rows removed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
