// The provider's signing keys (interface.md 17.12), shared by every
// instance: the public JWK as text, the private JWK sealed with the secret
// key of 12.2. Which key signs is the domain's decision
// (auth/oidc/signing_keys.hpp): the store keeps the times it decides by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

struct SigningKeyRecord {
  std::string kid;
  std::string alg;              // "RS256" or "ES256"
  std::int64_t generation = 0;  // 1, 2, ... per alg: one key per (alg, generation)
  std::string public_jwk;       // JSON text, public members only
  std::string sealed_private;   // SecretSealer::seal of the private JWK
  Millis created_at = 0;
  Millis signs_from = 0;               // published before, signs from then on
  std::optional<Millis> retired_at;    // stopped signing
  std::optional<Millis> remove_after;  // left out of the JWKS and deleted after this
};

class SigningKeyStore {
 public:
  virtual ~SigningKeyStore() = default;

  // False, and nothing written, when the (alg, generation) is taken: another
  // instance made that key first.
  virtual bool insert(const SigningKeyRecord& key) = 0;
  // Every key, by alg then generation.
  virtual std::vector<SigningKeyRecord> list() = 0;
  // False when there is no such key or it was retired already (its first
  // retirement, when it stopped signing, is kept).
  virtual bool retire(std::string_view kid, Millis retired_at, Millis remove_after) = 0;
  // Makes a published key sign from `signs_from` (authd oidc rotate-keys --now).
  virtual bool set_signs_from(std::string_view kid, Millis signs_from) = 0;
  virtual bool reseal(std::string_view kid, std::string_view sealed_private) = 0;
  // Removes the keys whose remove_after has passed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
