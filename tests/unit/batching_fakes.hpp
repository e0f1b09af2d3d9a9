// Stand-ins for the batching tests (store/batching/): a transaction whose
// areas are never used, and a BatchedStore that records its batches.
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "store/batching/batched_store.hpp"

namespace authd::test {

// The jobs of these tests never touch a table.
class NoAreas final : public Transaction {
 public:
  UserStore& users() override { throw std::logic_error("no areas here"); }
  SessionStore& sessions() override { throw std::logic_error("no areas here"); }
  ThrottleStore& throttle() override { throw std::logic_error("no areas here"); }
  OutboxStore& outbox() override { throw std::logic_error("no areas here"); }
  ResetTokenStore& reset_tokens() override { throw std::logic_error("no areas here"); }
  EmailSignInStore& email_signins() override { throw std::logic_error("no areas here"); }
  UpstreamFlowStore& upstream_flows() override { throw std::logic_error("no areas here"); }
  SignupStore& signups() override { throw std::logic_error("no areas here"); }
  AdminKeyStore& admin_keys() override { throw std::logic_error("no areas here"); }
  SecondFactorStore& second_factors() override { throw std::logic_error("no areas here"); }
  PasskeyStore& passkeys() override { throw std::logic_error("no areas here"); }
  IdentityStore& identities() override { throw std::logic_error("no areas here"); }
  EventStore& events() override { throw std::logic_error("no areas here"); }
  WebhookStore& webhooks() override { throw std::logic_error("no areas here"); }
  OAuthClientStore& oauth_clients() override { throw std::logic_error("no areas here"); }
  AuthorizationRequestStore& authorization_requests() override {
    throw std::logic_error("no areas here");
  }
  AuthorizationCodeStore& authorization_codes() override {
    throw std::logic_error("no areas here");
  }
  AccessTokenStore& access_tokens() override { throw std::logic_error("no areas here"); }
  ClientTokenStore& client_tokens() override { throw std::logic_error("no areas here"); }
  RefreshTokenStore& refresh_tokens() override { throw std::logic_error("no areas here"); }
  ConsentStore& consents() override { throw std::logic_error("no areas here"); }
  SigningKeyStore& signing_keys() override { throw std::logic_error("no areas here"); }
  OperatorStore& operators() override { throw std::logic_error("no areas here"); }
};

// Runs each unit's work (ok, or the exception for its caller) and records
// the size and thread of every batch. `hold_first` keeps the first batch
// waiting until released, so that the test can queue more behind it.
class RecordingBatches final : public Store, public BatchedStore {
 public:
  bool hold_first = false;
  std::promise<void> first_started;
  std::promise<void> release_first;
  bool throw_in_batch = false;

  StoreStatus run(Mode, const std::function<void(Transaction&)>& work) override {
    NoAreas tx;
    work(tx);
    return StoreStatus::ok;
  }
  int migrate() override { return 0; }
  void run_writes(std::span<Unit> units) override { record(units); }
  void run_reads(std::span<Unit> units) override { record(units); }

  std::vector<std::size_t> sizes() {
    std::lock_guard lock(mutex_);
    return sizes_;
  }
  std::thread::id last_thread() {
    std::lock_guard lock(mutex_);
    return last_thread_;
  }

 private:
  void record(std::span<Unit> units) {
    bool first = false;
    {
      std::lock_guard lock(mutex_);
      first = sizes_.empty();
      sizes_.push_back(units.size());
      last_thread_ = std::this_thread::get_id();
    }
    if (first && hold_first) {
      first_started.set_value();
      release_first.get_future().wait();
    }
    if (throw_in_batch) throw std::bad_alloc();
    for (Unit& unit : units) {
      try {
        NoAreas tx;
        (*unit.work)(tx);
        unit.status = StoreStatus::ok;
      } catch (...) {
        unit.error = std::current_exception();
      }
    }
  }

  std::mutex mutex_;
  std::vector<std::size_t> sizes_;
  std::thread::id last_thread_;
};

}  // namespace authd::test
