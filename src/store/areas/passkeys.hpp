// The passkeys area (interface.md 16.6): the accounts' WebAuthn credentials
// (public keys and counters), and the challenges issued for them, stored
// only as digests. A challenge is taken by one conditional DELETE, so that
// of two responses naming it, on one instance or several, one gets it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class PasskeyStore {
 public:
  virtual ~PasskeyStore() = default;

  // A challenge for `purpose`; `user_id` is its account for a
  // registration, empty for a sign-in.
  virtual void put_challenge(const Sha256Digest& digest, ChallengePurpose purpose,
                             std::string_view user_id, Millis expires_at) = 0;
  // Removes the challenge with this digest, whatever it was for, and
  // returns its account ("" for a sign-in) when it was for `purpose` and
  // had not expired at `now`; nothing otherwise.
  virtual std::optional<std::string> take_challenge(const Sha256Digest& digest,
                                                    ChallengePurpose purpose, Millis now) = 0;

  virtual std::optional<PasskeyRecord> by_id(std::string_view id) = 0;
  // The account's passkeys, oldest first.
  virtual std::vector<PasskeyRecord> of_user(std::string_view user_id) = 0;
  virtual std::int64_t count_of(std::string_view user_id) = 0;
  // False when the credential id is registered already (to anyone).
  virtual bool insert(const PasskeyRecord& passkey) = 0;
  // A sign-in or second factor with it: the counter moves from `was` (the
  // value read) to `sign_count`; false when another use moved it meanwhile.
  virtual bool record_use(std::string_view id, std::int64_t was, std::int64_t sign_count,
                          bool backed_up, Millis at) = 0;
  // False when the account has no passkey with this id.
  virtual bool remove(std::string_view user_id, std::string_view id) = 0;
  virtual std::int64_t remove_all_of(std::string_view user_id) = 0;
  // Removes the challenges expired at `now`; returns the rows removed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
