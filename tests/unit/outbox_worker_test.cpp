// The outbox worker's claims (interface.md 6 /forgot 4; issue 28): with a
// quick relay one claim takes several due mails and their marks share one
// transaction; every mail is still sent once and marked sent, and what a
// claim does not try (the relay failed, or its lease is running out) goes
// back at once for any delivery thread to claim. On SQLite and PostgreSQL
// (the PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "core/time.hpp"
#include "mail/outbox_worker.hpp"
#include "store_conformance_fixture.hpp"

namespace authd {
namespace {

// A relay that records whom it was given mail for. From send number
// `fail_from` on it fails for now (a 4xx); each send takes `delay`.
class RecordingRelay final : public MailTransport {
 public:
  void send(const MailMessage& message) override {
    std::lock_guard lock(mutex_);
    ++calls_;
    if (fail_from_ != 0 && calls_ >= fail_from_) throw MailError("451 try again later");
    if (delay_.count() != 0) std::this_thread::sleep_for(delay_);
    ++sent_to_[message.to];
  }
  void make_durable() override {
    if (on_durable) on_durable();
  }
  std::function<void()> on_durable;

  void fail_from_send(int n) {
    std::lock_guard lock(mutex_);
    fail_from_ = calls_ + n;
  }
  void take(std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    delay_ = delay;
  }
  std::map<std::string, int> sent_to() {
    std::lock_guard lock(mutex_);
    return sent_to_;
  }

 private:
  std::mutex mutex_;
  int calls_ = 0;
  int fail_from_ = 0;
  std::chrono::milliseconds delay_{0};
  std::map<std::string, int> sent_to_;
};

template <class Backend>
class OutboxWorkerClaims : public StoreConformanceFixture<Backend> {
 protected:
  // `count` accounts, each with a reset mail due now; their addresses.
  std::vector<std::string> queue_reset_mails(int count, const std::string& prefix) {
    std::vector<std::string> addresses;
    for (int i = 0; i < count; ++i) {
      addresses.push_back(prefix + std::to_string(i) + "@example.com");
      this->stored_user(addresses.back());
    }
    queue_mails_to(addresses);
    return addresses;
  }

  void queue_mails_to(const std::vector<std::string>& addresses) {
    this->write([&](Transaction& tx) {
      for (const std::string& address : addresses)
        tx.outbox().enqueue(this->mail(address, now_millis()));
    });
  }

  // A worker with `lease`, its threads not started: the test calls
  // deliver_one itself.
  std::unique_ptr<OutboxWorker> worker(Duration lease = std::chrono::minutes(2)) {
    OutboxSettings s;
    s.from = "authd <no-reply@example.com>";
    s.public_url = "https://auth.example.com";
    s.lease = lease;
    return std::make_unique<OutboxWorker>(*this->store_, relay_, s);
  }

  // deliver_one until nothing is due; how many claims that took.
  int deliver_all(OutboxWorker& worker) {
    int claims = 0;
    while (worker.deliver_one(idle_) == OutboxWorker::Claim::delivered) ++claims;
    return claims;
  }

  std::int64_t pending() {
    std::int64_t count = 0;
    this->read([&](Transaction& tx) { count = tx.outbox().pending_count(); });
    return count;
  }

  RecordingRelay relay_;
  PeriodicThread idle_{std::chrono::seconds(1), [] {}};  // never started
};

using Backends = ::testing::Types<OnSqlite, OnPostgres>;
TYPED_TEST_SUITE(OutboxWorkerClaims, Backends);

TYPED_TEST(OutboxWorkerClaims,
           Interface_6_Forgot_4_AQuickRelayGetsSeveralMailsPerClaimEachSentOnce) {
  auto worker = this->worker();
  const std::vector<std::string> addresses = this->queue_reset_mails(60, "quick");
  const int claims = this->deliver_all(*worker);
  std::map<std::string, int> sent = this->relay_.sent_to();
  ASSERT_EQ(sent.size(), addresses.size());
  for (const std::string& address : addresses) EXPECT_EQ(sent[address], 1) << address;
  EXPECT_EQ(this->pending(), 0) << "every mail marked sent";
  EXPECT_LT(claims, 30) << "claims took several mails each once the relay proved quick";
}

TYPED_TEST(OutboxWorkerClaims,
           Interface_6_Forgot_4_ARelayFailureLeavesTheRestOfTheClaimUntriedAndClaimableAtOnce) {
  auto worker = this->worker();
  this->queue_reset_mails(40, "warm");
  this->deliver_all(*worker);  // the relay has proved quick: claims take many mails
  const std::vector<std::string> addresses = this->queue_reset_mails(10, "batch");
  this->relay_.fail_from_send(3);
  EXPECT_EQ(worker->deliver_one(this->idle_), OutboxWorker::Claim::delivered);

  std::map<std::string, int> sent = this->relay_.sent_to();
  EXPECT_EQ(sent[addresses[0]], 1);
  EXPECT_EQ(sent[addresses[1]], 1);
  for (std::size_t i = 2; i < addresses.size(); ++i) EXPECT_EQ(sent.count(addresses[i]), 0u);
  EXPECT_EQ(this->pending(), 8) << "the failed one and the seven not tried";
  this->write([&](Transaction& tx) {
    // Well inside the claim's lease: only a release makes them claimable.
    std::vector<OutboxRecord> again = tx.outbox().claim_due(now_millis(), now_millis() + 1'000, 32);
    ASSERT_EQ(again.size(), 7u) << "the failed one waits for its retry";
    for (const OutboxRecord& mail : again) {
      EXPECT_EQ(mail.attempts, 0) << mail.email << " was not tried";
      EXPECT_NE(mail.email, addresses[2]);
    }
  });
}

// interface.md 8.3: a claim's mails are durable at the transport (the mail
// directory's fsync) before any of them is marked sent; one flush a claim.
TYPED_TEST(OutboxWorkerClaims, Interface_8_3_AClaimsMailsAreMadeDurableBeforeTheyAreMarkedSent) {
  auto worker = this->worker();
  this->queue_reset_mails(60, "durable");
  int flushes = 0;
  std::int64_t unsent_at_flush = 0;
  this->relay_.on_durable = [&] {
    ++flushes;
    unsent_at_flush = std::max(unsent_at_flush, this->pending());
  };
  const int claims = this->deliver_all(*worker);
  EXPECT_EQ(flushes, claims) << "one flush per claim that sent mail";
  EXPECT_GT(unsent_at_flush, 0) << "flushed before the marks";
  EXPECT_EQ(this->pending(), 0);
}

// A claim's lease must outlast its sends: once a quarter of it has gone,
// the mails not tried yet go back rather than be sent under a lease that
// may run out (and another claim send them again).
TYPED_TEST(OutboxWorkerClaims, Interface_6_Forgot_4_MailsOfAClaimAreNotSentPastAQuarterOfItsLease) {
  auto worker = this->worker(std::chrono::milliseconds(40));
  this->queue_reset_mails(40, "warm");
  this->deliver_all(*worker);
  const std::vector<std::string> addresses = this->queue_reset_mails(5, "slow");
  this->relay_.take(std::chrono::milliseconds(15));  // more than the lease's quarter, 10 ms
  EXPECT_EQ(worker->deliver_one(this->idle_), OutboxWorker::Claim::delivered);
  std::map<std::string, int> sent = this->relay_.sent_to();
  EXPECT_EQ(sent[addresses[0]], 1);
  for (std::size_t i = 1; i < addresses.size(); ++i) EXPECT_EQ(sent.count(addresses[i]), 0u);
  EXPECT_EQ(this->pending(), 4);
}

// Two claims that hold mails for the same accounts mint their tokens in the
// same order, so that on PostgreSQL neither waits for the other's row locks
// in a cycle (a deadlock, which would fail one claim). Four delivery threads
// at once, on mails for six accounts queued in a shuffled order.
TYPED_TEST(OutboxWorkerClaims, Interface_8_2_ConcurrentClaimsOfMailsForTheSameAccountsAllCommit) {
  auto worker = this->worker();
  const std::vector<std::string> accounts = this->queue_reset_mails(6, "shared");
  this->deliver_all(*worker);  // the relay has proved quick: claims take many mails
  std::vector<std::string> addresses;
  addresses.reserve(600);
  for (int i = 0; i < 600; ++i) addresses.push_back(accounts[i % 6]);
  std::shuffle(addresses.begin(), addresses.end(), std::mt19937(28));
  this->queue_mails_to(addresses);

  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      PeriodicThread idle(std::chrono::seconds(1), [] {});
      for (;;) {
        OutboxWorker::Claim claim = worker->deliver_one(idle);
        if (claim == OutboxWorker::Claim::store_failed) ++failed;
        if (claim == OutboxWorker::Claim::nothing_due) return;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 0) << "a claim failed (on PostgreSQL: a deadlock)";
  EXPECT_EQ(this->pending(), 0);
}

}  // namespace
}  // namespace authd
