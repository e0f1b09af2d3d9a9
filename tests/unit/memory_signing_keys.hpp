// A store that holds signing keys only, in memory, for the key ring's unit
// tests (auth/oidc/signing_keys.hpp): SigningKeyStore's contract as the
// backends keep it (one key per alg and generation, list by alg then
// generation), and a transaction undone when its work throws.
#pragma once

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "store/store.hpp"

namespace authd::test {

class MemorySigningKeys final : public SigningKeyStore {
 public:
  std::vector<SigningKeyRecord> rows;

  bool insert(const SigningKeyRecord& key) override {
    for (const SigningKeyRecord& row : rows)
      if (row.kid == key.kid || (row.alg == key.alg && row.generation == key.generation))
        return false;
    rows.push_back(key);
    return true;
  }
  std::vector<SigningKeyRecord> list() override {
    std::vector<SigningKeyRecord> out = rows;
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.alg != b.alg ? a.alg < b.alg : a.generation < b.generation;
    });
    return out;
  }
  bool retire(std::string_view kid, Millis retired_at, Millis remove_after) override {
    return change(kid, [&](SigningKeyRecord& row) {
      row.retired_at = retired_at;
      row.remove_after = remove_after;
    });
  }
  bool set_signs_from(std::string_view kid, Millis signs_from) override {
    return change(kid, [&](SigningKeyRecord& row) { row.signs_from = signs_from; });
  }
  bool reseal(std::string_view kid, std::string_view sealed_private) override {
    return change(kid, [&](SigningKeyRecord& row) { row.sealed_private = sealed_private; });
  }
  std::int64_t prune(Millis now) override {
    auto gone = std::remove_if(rows.begin(), rows.end(), [now](const SigningKeyRecord& row) {
      return row.remove_after && *row.remove_after <= now;
    });
    auto count = static_cast<std::int64_t>(rows.end() - gone);
    rows.erase(gone, rows.end());
    return count;
  }

 private:
  template <class Change>
  bool change(std::string_view kid, Change&& apply) {
    for (SigningKeyRecord& row : rows)
      if (row.kid == kid) {
        apply(row);
        return true;
      }
    return false;
  }
};

// Every area but the signing keys throws: the ring touches no other table.
class SigningKeysOnly final : public Transaction {
 public:
  explicit SigningKeysOnly(MemorySigningKeys& keys) : keys_(keys) {}
  UserStore& users() override { throw std::logic_error("unused"); }
  SessionStore& sessions() override { throw std::logic_error("unused"); }
  ThrottleStore& throttle() override { throw std::logic_error("unused"); }
  OutboxStore& outbox() override { throw std::logic_error("unused"); }
  ResetTokenStore& reset_tokens() override { throw std::logic_error("unused"); }
  EmailSignInStore& email_signins() override { throw std::logic_error("unused"); }
  UpstreamFlowStore& upstream_flows() override { throw std::logic_error("unused"); }
  SignupStore& signups() override { throw std::logic_error("unused"); }
  AdminKeyStore& admin_keys() override { throw std::logic_error("unused"); }
  SecondFactorStore& second_factors() override { throw std::logic_error("unused"); }
  PasskeyStore& passkeys() override { throw std::logic_error("unused"); }
  IdentityStore& identities() override { throw std::logic_error("unused"); }
  EventStore& events() override { throw std::logic_error("unused"); }
  WebhookStore& webhooks() override { throw std::logic_error("unused"); }
  OAuthClientStore& oauth_clients() override { throw std::logic_error("unused"); }
  AuthorizationRequestStore& authorization_requests() override { throw std::logic_error("unused"); }
  AuthorizationCodeStore& authorization_codes() override { throw std::logic_error("unused"); }
  AccessTokenStore& access_tokens() override { throw std::logic_error("unused"); }
  ClientTokenStore& client_tokens() override { throw std::logic_error("unused"); }
  RefreshTokenStore& refresh_tokens() override { throw std::logic_error("unused"); }
  ConsentStore& consents() override { throw std::logic_error("unused"); }
  SigningKeyStore& signing_keys() override { return keys_; }
  OperatorStore& operators() override { throw std::logic_error("unused"); }

 private:
  MemorySigningKeys& keys_;
};

class MemoryKeyStore final : public Store {
 public:
  MemorySigningKeys keys;
  int writes = 0;

  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override {
    std::lock_guard lock(mutex_);
    std::vector<SigningKeyRecord> before = keys.rows;
    SigningKeysOnly tx(keys);
    try {
      work(tx);
    } catch (...) {
      keys.rows = before;
      throw;
    }
    if (mode == Mode::write) ++writes;
    return StoreStatus::ok;
  }
  int migrate() override { return 0; }

 private:
  std::mutex mutex_;
};

}  // namespace authd::test
