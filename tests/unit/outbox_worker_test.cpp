// The outbox worker's claims (interface.md 6 /forgot 4): with a
// quick relay one claim takes several due mails and their marks share one
// transaction; every mail is still sent once and marked sent, and what a
// claim does not try (the relay failed, or its lease is running out) goes
// back at once for any delivery thread to claim. On SQLite and PostgreSQL
// (the PostgreSQL cases skip unless AUTHD_TEST_POSTGRES names a server).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <type_traits>

#include "auth/events/notices.hpp"
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
  void recover() {
    std::lock_guard lock(mutex_);
    fail_from_ = 0;
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
  std::unique_ptr<OutboxWorker> worker(Duration lease = std::chrono::minutes(2),
                                       Duration send_timeout = std::chrono::seconds(30),
                                       Duration relay_probe = std::chrono::seconds(2)) {
    OutboxSettings s;
    s.relay_probe = relay_probe;
    s.from = "authd <no-reply@example.com>";
    s.public_url = "https://auth.example.com";
    s.lease = lease;
    s.send_timeout = send_timeout;
    return std::make_unique<OutboxWorker>(*this->store_, relay_, s);
  }

  // Once the relay has proved quick (claims take many mails), five mails
  // due and a relay that now takes `per_send`: one claim takes all five and
  // sends only the first.
  void expect_one_claim_sends_only_its_first_of_five(OutboxWorker& worker,
                                                     std::chrono::milliseconds per_send) {
    queue_reset_mails(40, "warm");
    deliver_all(worker);
    const std::vector<std::string> addresses = queue_reset_mails(5, "slow");
    relay_.take(per_send);
    EXPECT_EQ(worker.deliver_one(idle_), OutboxWorker::Claim::delivered);
    std::map<std::string, int> sent = relay_.sent_to();
    EXPECT_EQ(sent[addresses[0]], 1);
    for (std::size_t i = 1; i < addresses.size(); ++i) EXPECT_EQ(sent.count(addresses[i]), 0u);
  }

  // deliver_one until nothing is due; how many claims that took.
  int deliver_all(OutboxWorker& worker) {
    int claims = 0;
    while (worker.deliver_one(idle_) == OutboxWorker::Claim::delivered) ++claims;
    return claims;
  }

  // `threads` delivery threads at once, each claiming until nothing is
  // pending (on PostgreSQL a claim gives back the mails of an account
  // another claim holds, due again a second later), for a minute at most;
  // how many claims failed in the store.
  int claims_failed_racing(OutboxWorker& worker, int threads) {
    std::atomic<int> failed{0};
    std::vector<std::thread> running;
    running.reserve(static_cast<std::size_t>(threads));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (int t = 0; t < threads; ++t) {
      running.emplace_back([&] {
        PeriodicThread idle(std::chrono::seconds(1), [] {});
        while (std::chrono::steady_clock::now() < deadline) {
          OutboxWorker::Claim claim = worker.deliver_one(idle);
          if (claim == OutboxWorker::Claim::store_failed) ++failed;
          if (claim != OutboxWorker::Claim::nothing_due) continue;
          if (this->pending() == 0) return;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      });
    }
    for (std::thread& thread : running) thread.join();
    return failed.load();
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

// A claim's lease must outlast its sends: a claim starts another send only
// if one that took the transport's whole time-out would still end inside
// the lease; otherwise the mails not tried go back rather than be sent under
// a lease that may run out (and another claim send them again).
TYPED_TEST(OutboxWorkerClaims, Interface_6_Forgot_4_AClaimStartsNoSendThatCouldOutlastItsLease) {
  auto worker = this->worker(std::chrono::milliseconds(400), std::chrono::milliseconds(390));
  // After the first send, one more that took 390 ms would end past the
  // 400 ms lease (within the claim's 40 ms budget, and its quarter).
  this->expect_one_claim_sends_only_its_first_of_five(*worker, std::chrono::milliseconds(15));
  EXPECT_EQ(this->pending(), 4);
}

// A relay that turns slow mid-claim: once the claim's sends have taken twice
// their budget (40 ms), the rest go back at once for the other delivery
// threads, so one thread does not send a whole claim at the slow pace.
TYPED_TEST(OutboxWorkerClaims,
           Interface_6_Forgot_4_ARelayThatTurnsSlowLeavesTheRestOfTheClaimToOthers) {
  auto worker = this->worker();
  this->expect_one_claim_sends_only_its_first_of_five(*worker, std::chrono::milliseconds(50));
  this->write([&](Transaction& tx) {
    // Well inside the claim's 2-minute lease: only a release makes them claimable.
    EXPECT_EQ(tx.outbox().claim_due(now_millis(), now_millis() + 1'000, 32).size(), 4u);
  });
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

  EXPECT_EQ(this->claims_failed_racing(*worker, 4), 0)
      << "a claim failed (on PostgreSQL: a deadlock)";
  EXPECT_EQ(this->pending(), 0);
}

// The same with notices (interface.md 14.3), which name their account by id
// and go to the address it had (an e-mail change's notice goes to the old
// one), mixed with reset mails to the accounts' present addresses: every
// claim commits and every mail goes once. (This race did not produce a
// deadlock here even with the accounts ordered by address alone; the order
// the accounts are locked in is shown by postgres_store_test.cpp,
// Interface_8_2_AClaimLocksTheAccountsItsMailsNameAndSkipsAHeldOne.)
TYPED_TEST(OutboxWorkerClaims,
           Interface_8_2_ConcurrentClaimsOfNoticesAndResetsAllCommitAndSendEachOnce) {
  auto worker = this->worker();
  this->queue_reset_mails(40, "warm");
  this->deliver_all(*worker);  // the relay has proved quick: claims take many mails
  // 20 accounts, so that a claim (at most 32 mails) holds some of them,
  // some only by a notice; their present addresses ascend with their ids,
  // their old ones descend.
  std::vector<OutboxRecord> mails;
  mails.reserve(1200);
  for (int i = 10; i < 30; ++i) {
    UserRecord account = this->stored_user("b" + std::to_string(i) + "@example.com");
    for (int n = 0; n < 30; ++n) {
      mails.push_back(this->mail(account.email, now_millis()));
      OutboxRecord notice = this->mail("y" + std::to_string(99 - i) + "@example.com", now_millis());
      notice.kind = notice_kind({NoticeTopic::email_changed, NoticeActor::self});
      notice.user_id = account.id;
      mails.push_back(notice);
    }
  }
  std::shuffle(mails.begin(), mails.end(), std::mt19937(14));
  this->write([&](Transaction& tx) {
    for (const OutboxRecord& mail : mails) tx.outbox().enqueue(mail);
  });
  EXPECT_EQ(this->claims_failed_racing(*worker, 4), 0)
      << "a claim failed (on PostgreSQL: a deadlock)";
  EXPECT_EQ(this->pending(), 0);
  std::map<std::string, int> sent = this->relay_.sent_to();
  EXPECT_EQ(sent["y89@example.com"], 30) << "each notice sent once";
  EXPECT_EQ(sent["b10@example.com"], 30) << "each reset sent once";
}

// 8.2: while the worker catches up after the relay came back, a claim takes
// the earliest pending mail, due or not. When that mail's account is held by
// another transaction, the mail goes back untried, and no earlier than it
// was due: being held never moves a mail ahead of its backoff.
TYPED_TEST(OutboxWorkerClaims, Interface_8_2_AHeldAccountNeverMakesItsMailDueEarlier) {
  if constexpr (!std::is_same_v<TypeParam, OnPostgres>) {
    GTEST_SKIP() << "SQLite has one writer: no account is ever held by another transaction";
  } else {
    auto worker = this->worker(std::chrono::minutes(2), std::chrono::seconds(30), Duration{0});
    const UserRecord held = this->stored_user("held@example.com");
    const Millis later = now_millis() + 3'600'000;
    this->write([&](Transaction& tx) { tx.outbox().enqueue(this->mail(held.email, later)); });
    this->queue_reset_mails(1, "down");
    this->relay_.fail_from_send(1);
    ASSERT_EQ(worker->deliver_one(this->idle_), OutboxWorker::Claim::delivered);  // failed: down
    this->relay_.recover();
    // The probe takes the failed mail (its backoff is seconds): the relay
    // answers, and the worker catches up, taking the held account's mail next.
    ASSERT_EQ(worker->deliver_one(this->idle_), OutboxWorker::Claim::delivered);
    ASSERT_EQ(this->relay_.sent_to()["down0@example.com"], 1);

    PGconn* holder = PQconnectdb(this->backend_.url.c_str());
    PQclear(PQexec(holder, "BEGIN"));
    PQclear(
        PQexec(holder, ("SELECT 1 FROM users WHERE id = '" + held.id + "' FOR UPDATE").c_str()));
    EXPECT_EQ(worker->deliver_one(this->idle_), OutboxWorker::Claim::held_back);
    PQclear(PQexec(holder, "COMMIT"));
    PQfinish(holder);

    this->write([&](Transaction& tx) {
      auto mail = tx.outbox().claim_pending(now_millis(), now_millis() + 1'000);
      ASSERT_TRUE(mail);
      EXPECT_EQ(mail->email, held.email);
      EXPECT_EQ(mail->attempts, 0) << "held back untried";
      EXPECT_EQ(mail->next_attempt_at, later) << "due again no earlier than it was";
    });
    EXPECT_EQ(this->relay_.sent_to().count(held.email), 0u);
  }
}

}  // namespace
}  // namespace authd
