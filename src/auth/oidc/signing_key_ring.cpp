#include "auth/oidc/signing_key_ring.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/wipe.hpp"
#include "crypto/sealed_secrets.hpp"

namespace authd {
namespace {

constexpr jose::Alg kAlgs[] = {jose::Alg::rs256, jose::Alg::es256};

bool is(const SigningKeyRecord& record, jose::Alg alg) { return record.alg == jose::alg_name(alg); }

bool signs_at(const SigningKeyRecord& record, Millis now) {
  return !record.retired_at && record.signs_from <= now;
}

bool published_at(const SigningKeyRecord& record, Millis now) {
  return !record.remove_after || *record.remove_after > now;
}

std::optional<jose::SigningKey> open_key(const SigningKeyRecord& record,
                                         const SecretSealer& sealer) {
  std::optional<jose::Alg> alg = jose::alg_from_name(record.alg);
  if (!alg) return std::nullopt;
  std::optional<SecretSealer::Opened> opened =
      sealer.open(record.sealed_private, signing_key_seal_context(record.kid));
  if (!opened) return std::nullopt;
  WipeOnExit wiped(opened->plaintext);
  return jose::SigningKey::import_private(opened->plaintext, *alg, record.kid);
}

// The rotation rules for one algorithm's keys (signing_keys.hpp).
void plan_alg(const std::vector<SigningKeyRecord>& stored, jose::Alg alg,
              const SecretSealer& sealer, const SigningKeySettings& settings, Millis now,
              RingPlan& plan) {
  const SigningKeyRecord* current = current_record(stored, alg, now);
  std::int64_t newest = 0;
  bool pending = false;
  for (const SigningKeyRecord& record : stored) {
    if (!is(record, alg)) continue;
    newest = std::max(newest, record.generation);
    if (record.retired_at || current == nullptr) continue;
    if (record.generation > current->generation) pending = true;
    if (record.generation < current->generation) plan.retire.push_back(record.kid);
  }
  if (current == nullptr) {
    plan.inserts.push_back(make_signing_key(alg, newest + 1, now, sealer, now));
  } else if (!pending &&
             now >= current->signs_from + (settings.rotation - settings.prepublish).count()) {
    plan.inserts.push_back(
        make_signing_key(alg, newest + 1, now + settings.prepublish.count(), sealer, now));
  }
}

}  // namespace

std::string signing_key_seal_context(std::string_view kid) {
  return "oidc-signing-key:" + std::string(kid);
}

Millis retired_remove_after(const SigningKeySettings& settings, Millis now) {
  return now + settings.longest_token_ttl.count() +
         std::chrono::duration_cast<Duration>(kRetiredGrace).count();
}

const OpenedSigningKey* SigningKeyRing::current(jose::Alg alg, Millis now) const {
  const OpenedSigningKey* best = nullptr;
  for (const OpenedSigningKey& key : keys)
    if (is(key.record, alg) && signs_at(key.record, now) &&
        (best == nullptr || key.record.generation > best->record.generation))
      best = &key;
  return best;
}

const SigningKeyRecord* current_record(const std::vector<SigningKeyRecord>& stored, jose::Alg alg,
                                       Millis now) {
  const SigningKeyRecord* best = nullptr;
  for (const SigningKeyRecord& record : stored)
    if (is(record, alg) && signs_at(record, now) &&
        (best == nullptr || record.generation > best->generation))
      best = &record;
  return best;
}

std::shared_ptr<SigningKeyRing> open_ring(const std::vector<SigningKeyRecord>& stored,
                                          const SecretSealer& sealer, Millis now) {
  auto ring = std::make_shared<SigningKeyRing>();
  nlohmann::json published = nlohmann::json::array();
  for (const SigningKeyRecord& record : stored) {
    if (!published_at(record, now)) continue;
    nlohmann::json jwk = nlohmann::json::parse(record.public_jwk, nullptr, false);
    if (jwk.is_object()) published.push_back(std::move(jwk));
    std::optional<jose::SigningKey> key = open_key(record, sealer);
    if (!key) {
      ring->unopened.push_back(record.kid);
      continue;
    }
    SigningKeyRecord kept = record;
    kept.sealed_private.clear();
    ring->keys.push_back({std::move(kept), std::move(*key)});
  }
  ring->jwks = nlohmann::json{{"keys", std::move(published)}}.dump();
  return ring;
}

SigningKeyRecord make_signing_key(jose::Alg alg, std::int64_t generation, Millis signs_from,
                                  const SecretSealer& sealer, Millis now) {
  SigningKeyRecord record;
  record.kid = jose::new_kid();
  record.alg = std::string(jose::alg_name(alg));
  record.generation = generation;
  jose::SigningKey key = jose::SigningKey::generate(alg, record.kid);
  record.public_jwk = key.public_jwk();
  std::string private_jwk = key.private_jwk();
  WipeOnExit wiped(private_jwk);
  record.sealed_private = sealer.seal(private_jwk, signing_key_seal_context(record.kid));
  record.created_at = now;
  record.signs_from = signs_from;
  return record;
}

RingPlan plan_ring(const std::vector<SigningKeyRecord>& stored, const SecretSealer& sealer,
                   const SigningKeySettings& settings, Millis now) {
  RingPlan plan;
  for (jose::Alg alg : kAlgs) plan_alg(stored, alg, sealer, settings, now, plan);
  const std::string current_prefix = "v1." + sealer.current_key_id() + ".";
  for (const SigningKeyRecord& record : stored) {
    if (!published_at(record, now)) plan.prune = true;
    if (record.sealed_private.starts_with(current_prefix)) continue;
    // Sealed with the previous secret key (12.2.3): sealed anew.
    std::optional<SecretSealer::Opened> opened =
        sealer.open(record.sealed_private, signing_key_seal_context(record.kid));
    if (!opened) continue;
    WipeOnExit wiped(opened->plaintext);
    plan.reseals.emplace_back(record.kid,
                              sealer.seal(opened->plaintext, signing_key_seal_context(record.kid)));
  }
  return plan;
}

bool apply_plan(SigningKeyStore& keys, const RingPlan& plan, const SigningKeySettings& settings,
                Millis now) {
  bool all_inserted = true;
  for (const SigningKeyRecord& record : plan.inserts)
    if (!keys.insert(record)) all_inserted = false;
  for (const std::string& kid : plan.retire)
    keys.retire(kid, now, retired_remove_after(settings, now));
  for (const auto& [kid, sealed] : plan.reseals) keys.reseal(kid, sealed);
  if (plan.prune) keys.prune(now);
  return all_inserted;
}

}  // namespace authd
