#include "auth/oidc/signing_keys.hpp"

#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "auth/events/events.hpp"
#include "auth/oidc/signing_key_ring.hpp"
#include "core/log.hpp"
#include "store/store.hpp"

namespace authd {
namespace {

std::optional<std::vector<SigningKeyRecord>> read_keys(Store& store) {
  std::vector<SigningKeyRecord> stored;
  auto work = [&stored](Transaction& tx) { stored = tx.signing_keys().list(); };
  if (store.run(Store::Mode::read, work) != StoreStatus::ok) return std::nullopt;
  return stored;
}

// Thrown in a rotation's transaction (rolling it back) when a serving
// instance took the generation first.
struct GenerationTaken : std::runtime_error {
  GenerationTaken() : std::runtime_error("generation taken") {}
};

// The keys of the next pair; their generations are set in the transaction.
std::vector<SigningKeyRecord> next_pair(const SecretSealer& sealer, Millis signs_from, Millis now) {
  std::vector<SigningKeyRecord> pair;
  for (jose::Alg alg : {jose::Alg::rs256, jose::Alg::es256})
    pair.push_back(make_signing_key(alg, 0, signs_from, sealer, now));
  return pair;
}

}  // namespace

RotationResult rotate_signing_keys(Store& store, const SecretSealer& sealer,
                                   const SigningKeySettings& settings, bool now_signs,
                                   const EventSource& source) {
  RotationResult result;
  const Millis now = now_millis();
  result.signs_from = now_signs ? now : now + settings.prepublish.count();
  std::vector<SigningKeyRecord> pair = next_pair(sealer, result.signs_from, now);
  // A transaction may run again: each run decides anew. Losing a
  // generation to a serving instance's rotation is retried.
  auto work = [&](Transaction& tx) {
    result.made.clear();
    result.retired.clear();
    std::vector<SigningKeyRecord> stored = tx.signing_keys().list();
    for (SigningKeyRecord& key : pair) {
      std::int64_t newest = 0;
      for (const SigningKeyRecord& record : stored)
        if (record.alg == key.alg) {
          newest = std::max(newest, record.generation);
          if (now_signs && !record.retired_at) result.retired.push_back(record.kid);
        }
      key.generation = newest + 1;
      if (!tx.signing_keys().insert(key)) throw GenerationTaken{};
      result.made.push_back(key.kid);
    }
    for (const std::string& kid : result.retired)
      tx.signing_keys().retire(kid, now, retired_remove_after(settings, now));
    record_event(tx, source, "oidc.signing_keys_rotated", std::nullopt,
                 {{"kids", result.made},
                  {"retired", result.retired},
                  {"signsFrom", format_rfc3339(result.signs_from)}},
                 now);
  };
  for (int attempt = 0; attempt < 3; ++attempt) {
    StoreStatus status = StoreStatus::failed;
    try {
      status = store.run(Store::Mode::write, work);
    } catch (const GenerationTaken&) {
      continue;
    }
    result.ok = status == StoreStatus::ok;
    return result;
  }
  return result;
}

SigningKeys::SigningKeys(Store& store, const SecretSealer& sealer, SigningKeySettings settings)
    : store_(store),
      sealer_(sealer),
      settings_(settings),
      thread_(kRefreshInterval, [this] { refresh(); }) {}

SigningKeys::~SigningKeys() { thread_.stop(); }

std::shared_ptr<const SigningKeyRing> SigningKeys::ring() const {
  std::shared_lock lock(mutex_);
  return ring_;
}

bool SigningKeys::start_with_keys() {
  if (!refresh_once(true)) return false;
  std::shared_ptr<const SigningKeyRing> opened = ring();
  const Millis now = now_millis();
  for (jose::Alg alg : {jose::Alg::rs256, jose::Alg::es256}) {
    if (opened->current(alg, now) != nullptr) continue;
    // Sealed with a secret key this instance does not have (12.2): it
    // cannot sign what every other instance signs.
    log::error("oidc_signing_key_unopenable",
               {{"alg", jose::alg_name(alg)},
                {"reason",
                 "the current signing key does not open with --secret-key-file (or "
                 "--previous-secret-key-file)"}});
    return false;
  }
  log::info("oidc_signing_keys",
            {{"published", nlohmann::json::parse(opened->jwks)["keys"].size()}});
  return true;
}

bool SigningKeys::refresh() {
  try {
    return refresh_once(false);
  } catch (const std::exception& error) {
    log::error("oidc_signing_keys_refresh_failed", {{"error", error.what()}});
    return false;
  }
}

bool SigningKeys::refresh_once(bool at_start) {
  const Millis now = now_millis();
  std::optional<std::vector<SigningKeyRecord>> stored = read_keys(store_);
  if (!stored) {
    log::warn("oidc_signing_keys_unavailable", {{"reason", "the database could not be read"}});
    return false;
  }
  RingPlan plan = plan_ring(*stored, sealer_, settings_, now);
  if (plan.any()) {
    auto work = [&](Transaction& tx) { apply_plan(tx.signing_keys(), plan, settings_, now); };
    if (store_.run(Store::Mode::write, work) != StoreStatus::ok) return false;
    for (const SigningKeyRecord& made : plan.inserts)
      log::info(
          "oidc_signing_key_made",
          {{"kid", made.kid}, {"alg", made.alg}, {"signs_from", format_rfc3339(made.signs_from)}});
    stored = read_keys(store_);
    if (!stored) return false;
  }
  std::shared_ptr<const SigningKeyRing> opened = open_ring(*stored, sealer_, now);
  for (const std::string& kid : opened->unopened)
    if (reported_.insert(kid).second && !at_start)
      log::warn("oidc_signing_key_unopenable", {{"kid", kid}});
  std::unique_lock lock(mutex_);
  ring_ = std::move(opened);
  return true;
}

std::string SigningKeys::sign(std::string_view alg, const nlohmann::json& claims,
                              std::string_view typ) const {
  std::optional<jose::Alg> named = jose::alg_from_name(alg);
  if (!named) throw std::invalid_argument("unsupported signing alg");
  std::shared_ptr<const SigningKeyRing> opened = ring();
  const OpenedSigningKey* key = opened ? opened->current(*named, now_millis()) : nullptr;
  if (key == nullptr) throw std::runtime_error("no signing key for " + std::string(alg));
  return key->key.sign(claims.dump(), typ);
}

std::string SigningKeys::jwks_json() const {
  std::shared_ptr<const SigningKeyRing> opened = ring();
  return opened ? opened->jwks : R"({"keys":[]})";
}

}  // namespace authd
