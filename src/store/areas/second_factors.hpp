// The second factors area (interface.md 12): one TOTP factor per account at
// most (pending or confirmed), and the account's recovery codes, each
// stored only as its SHA-256 digest. The single-use rules are the store's:
// a step or a code is taken by one conditional write, so that two logins at
// once cannot both use it, on one instance or several.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class SecondFactorStore {
 public:
  virtual ~SecondFactorStore() = default;

  virtual std::optional<TotpFactorRecord> totp_of(std::string_view user_id) = 0;
  // Puts a pending factor in place of the account's pending one, if any.
  // False when the account has a confirmed factor (it stays).
  virtual bool put_pending_totp(const TotpFactorRecord& factor) = 0;
  // Confirms the pending factor whose secret is `sealed_secret`, with `step`
  // as its first accepted step. False when there is no such pending factor
  // (another enrolment replaced it meanwhile).
  virtual bool confirm_totp(std::string_view user_id, std::string_view sealed_secret,
                            std::int64_t step, Millis at) = 0;
  // Accepts `step` for the confirmed factor if it is newer than every step
  // accepted before; false otherwise (a replay, or no confirmed factor).
  virtual bool accept_totp_step(std::string_view user_id, std::int64_t step) = 0;
  // The same secret sealed anew (with the current key, during a rotation),
  // only over the sealed value `was` that was read: false when the factor
  // was enrolled again meanwhile (an old secret must not come back).
  virtual bool reseal_totp(std::string_view user_id, std::string_view was,
                           std::string_view sealed_secret) = 0;
  // The factors sealed with another key than `key_id`, after `after_user_id`
  // in id order, at most `limit` (authd mfa reseal).
  virtual std::vector<TotpFactorRecord> sealed_with_other_key(std::string_view key_id,
                                                              std::string_view after_user_id,
                                                              int limit) = 0;
  // Removes the factor and every recovery code of the account; true when a
  // confirmed factor was removed.
  virtual bool remove_all(std::string_view user_id) = 0;
  // Removes the TOTP factor alone, its recovery codes kept (the account has
  // passkeys still: interface.md 16.5.2).
  virtual void remove_totp(std::string_view user_id) = 0;

  // The account's recovery codes become exactly these (the old set is void).
  virtual void replace_recovery_codes(std::string_view user_id,
                                      const std::vector<Sha256Digest>& digests) = 0;
  // Takes the code: true when the account had it (it has it no longer).
  virtual bool use_recovery_code(std::string_view user_id, const Sha256Digest& digest) = 0;
  virtual std::int64_t recovery_codes_left(std::string_view user_id) = 0;
};

}  // namespace authd
