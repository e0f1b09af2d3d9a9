// The decisions of the key ring (auth/oidc/signing_keys.hpp), apart from
// its threads: what is due at a given time for the stored keys, and the
// ring opened in memory. Internal to auth/oidc/.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "auth/oidc/signing_keys.hpp"
#include "crypto/jose.hpp"
#include "store/areas/signing_keys.hpp"

namespace authd {

struct OpenedSigningKey {
  SigningKeyRecord record;  // sealed_private left empty
  jose::SigningKey key;
};

// The keys in memory: those whose private part opened, and the JWKS of
// every published key (opened or not: the public part needs no secret).
struct SigningKeyRing {
  std::vector<OpenedSigningKey> keys;
  std::vector<std::string> unopened;  // kids whose private part did not open
  std::string jwks;

  // The newest key of `alg` that is not retired and signs at `now`.
  const OpenedSigningKey* current(jose::Alg alg, Millis now) const;
};

// The same rule over the stored records (for the writes).
const SigningKeyRecord* current_record(const std::vector<SigningKeyRecord>& stored, jose::Alg alg,
                                       Millis now);

// Opens every key not yet past its remove_after.
std::shared_ptr<SigningKeyRing> open_ring(const std::vector<SigningKeyRecord>& stored,
                                          const SecretSealer& sealer, Millis now);

// What a refresh writes at `now` (signing_keys.hpp's rules).
struct RingPlan {
  std::vector<SigningKeyRecord> inserts;                     // new keys, sealed
  std::vector<std::string> retire;                           // kids, remove_after from now
  std::vector<std::pair<std::string, std::string>> reseals;  // kid, sealed anew
  bool prune = false;
  bool any() const { return !inserts.empty() || !retire.empty() || !reseals.empty() || prune; }
};

RingPlan plan_ring(const std::vector<SigningKeyRecord>& stored, const SecretSealer& sealer,
                   const SigningKeySettings& settings, Millis now);

// Applies `plan` in the caller's transaction; false when another instance
// inserted one of the generations first (its key stands; read again).
bool apply_plan(SigningKeyStore& keys, const RingPlan& plan, const SigningKeySettings& settings,
                Millis now);

// A new key of `alg`, its private JWK sealed (and wiped).
SigningKeyRecord make_signing_key(jose::Alg alg, std::int64_t generation, Millis signs_from,
                                  const SecretSealer& sealer, Millis now);

// When a key retired at `now` leaves the JWKS.
Millis retired_remove_after(const SigningKeySettings& settings, Millis now);

}  // namespace authd
