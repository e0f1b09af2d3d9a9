// The reset-tokens area: at most one live password-reset token per user,
// stored as its digest.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "store/records.hpp"

namespace authd {

class ResetTokenStore {
 public:
  virtual ~ResetTokenStore() = default;

  // Stores `token` as its user's only one: the older token is void.
  virtual void replace(const ResetTokenRecord& token) = 0;
  // In a write transaction on PostgreSQL the token's user row and then the
  // token's row are locked (that order, as every writer of tokens takes
  // them), so that of two concurrent uses of one token one wins.
  virtual std::optional<ResetTokenRecord> by_digest(const Sha256Digest& digest) = 0;
  virtual void delete_of_user(std::string_view user_id) = 0;
  // Removes the tokens expired at `now`; returns the rows removed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
