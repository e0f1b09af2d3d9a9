// The provider's key ring (interface.md 17.12): the signing keys every
// instance shares through the store, opened once and kept in memory.
//
// Keys come in pairs, one RS256 and one ES256 key per generation. The
// current key of an algorithm is its newest key, not retired, that signs
// already (signs_from <= now); a next key is published (in the JWKS) from
// its creation, --oidc-key-prepublish before it signs. Once a newer key
// signs, the older ones are retired and stay in the JWKS until whatever
// they signed has expired (remove_after), then are deleted. Each instance
// re-reads the ring every kRefreshInterval, and the first to see a rotation
// due makes the next pair (SigningKeyStore::insert lets one instance win
// each generation; the others read the winner's).
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/duration.hpp"
#include "core/periodic_thread.hpp"
#include "store/records.hpp"

namespace authd {

class SecretSealer;
class Store;
struct EventSource;
struct SigningKeyRing;

struct SigningKeySettings {
  Duration prepublish = std::chrono::hours(24);     // --oidc-key-prepublish
  Duration rotation = std::chrono::hours(24 * 90);  // --oidc-key-rotation
  // How long what a key signed stays valid: max(ID token, access token
  // lifetime). A retired key is published this long, plus kRetiredGrace.
  Duration longest_token_ttl = std::chrono::minutes(10);
};

// A refresh's lag: an instance may sign with a key retired elsewhere until
// it re-reads the ring, so a retired key stays published that much longer.
inline constexpr std::chrono::minutes kRetiredGrace{1};

// The seal context of a key's private JWK: a sealed key copied to another
// row does not open there.
std::string signing_key_seal_context(std::string_view kid);

// What `authd oidc rotate-keys` did.
struct RotationResult {
  bool ok = false;                   // false: the database failed
  std::vector<std::string> made;     // kids of the keys made (RS256, ES256)
  std::vector<std::string> retired;  // kids retired (--now)
  Millis signs_from = 0;
};

// Makes the next pair: published at once, signing after `prepublish`; or,
// with `now_signs`, signing at once with every older key retired (a key
// believed compromised). Records the event oidc.signing_keys_rotated
// (kids only, never key material).
RotationResult rotate_signing_keys(Store& store, const SecretSealer& sealer,
                                   const SigningKeySettings& settings, bool now_signs,
                                   const EventSource& source);

class SigningKeys {
 public:
  static constexpr std::chrono::seconds kRefreshInterval{30};

  SigningKeys(Store& store, const SecretSealer& sealer, SigningKeySettings settings);
  ~SigningKeys();
  SigningKeys(const SigningKeys&) = delete;
  SigningKeys& operator=(const SigningKeys&) = delete;

  // At start, before listening: makes the first pair when the store has
  // none, rotates when due, and opens the ring. False (logged) when the
  // store cannot be read or a current key cannot be opened with the secret
  // key: the start is then refused.
  bool start_with_keys();
  // The background refresh, every kRefreshInterval.
  void start() { thread_.start(); }
  void stop() { thread_.stop(); }
  // One refresh: rotation, retirement, resealing and pruning as due, then
  // the ring read again. False when the store failed (the ring in memory
  // stays as it was).
  bool refresh();

  // A compact JWS of `claims` signed by the current key of `alg` ("RS256"
  // or "ES256"), header {alg, kid, typ}. Throws std::invalid_argument for
  // another alg, std::runtime_error when the ring has no key for it.
  std::string sign(std::string_view alg, const nlohmann::json& claims,
                   std::string_view typ = "JWT") const;
  // {"keys":[...]}: the public JWKs of the current, next and retired keys.
  std::string jwks_json() const;
  // The keys in memory now (null before the first refresh): what
  // auth/oidc/jwt_verify.hpp checks authd's own JWTs with.
  std::shared_ptr<const SigningKeyRing> ring() const;

 private:
  bool refresh_once(bool at_start);

  Store& store_;
  const SecretSealer& sealer_;
  SigningKeySettings settings_;
  mutable std::shared_mutex mutex_;
  std::shared_ptr<const SigningKeyRing> ring_;
  std::set<std::string> reported_;  // kids that did not open, logged once (refresh thread)
  PeriodicThread thread_;
};

}  // namespace authd
