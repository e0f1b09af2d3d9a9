// Delivers the mail outbox (interface.md 6 /forgot 3-4, 11.4, 14.3): claims
// a due mail, mints its reset or sign-up token in the same transaction (or,
// for a sign-up whose address has an account, decides to tell the owner so;
// for a notification, reads the account's display name and mints nothing),
// sends it, marks it sent
// (retrying that mark while the database is unreachable, so that a mail the
// relay accepted is not sent again) or schedules a retry with capped
// exponential backoff (or drops it when the relay refused its recipient for
// good). Runs on threads of its own, so SMTP latency never reaches a request.
//
// A claim takes several due mails in one transaction when the relay is quick
// (claim_size), and their marks share one transaction too; a slow relay
// gets one mail per claim.
//
// Several deliveries run at once (`concurrency` threads, each one mail at a
// time), so that a relay that takes seconds per message does not cap mail at
// one message per relay round trip. Each mail is claimed with a lease in one
// transaction, so no two threads, here or in another instance, send it.
//
// A relay that fails (a time-out, a refused connection, a 4xx) is taken to be
// down: mails back off as before, but one delivery thread retries the
// earliest pending mail every `relay_probe`, due or not, so that the relay's
// return is noticed within seconds rather than one backoff interval (up to
// 10 minutes) later; once a delivery goes through again, the mails that were
// waiting out their backoff are sent at once (catching up), at full
// concurrency.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/duration.hpp"
#include "core/periodic_thread.hpp"
#include "mail/transport.hpp"
#include "store/store.hpp"

namespace authd {

class MailTemplates;
class SecretSealer;

struct OutboxSettings {
  std::string from;
  std::string public_url;
  Duration reset_token_lifetime = std::chrono::minutes(30);
  Duration signup_token_lifetime = std::chrono::hours(24);
  // A sign-in mail for an address without an account invites to sign up
  // when sign-up is open (interface.md 19.5).
  bool signup_open = false;
  // Keys the digests of sign-in codes (interface.md 19.2); null: none.
  const SecretSealer* sealer = nullptr;
  Duration poll_interval = std::chrono::seconds(1);
  Duration first_retry = std::chrono::seconds(2);
  Duration max_retry = std::chrono::minutes(10);
  // How long a claimed mail stays ours; after a crash it is retried once
  // the lease runs out.
  Duration lease = std::chrono::minutes(2);
  // The longest a send may take (the SMTP time-out): a claim starts another
  // send only if it would end inside the lease.
  Duration send_timeout = std::chrono::seconds(30);
  std::size_t concurrency = 4;  // deliveries at once (--mail-concurrency)
  Duration relay_probe = std::chrono::seconds(2);
  // What the mails are rendered from (--mail-templates); null: the built-in set.
  std::shared_ptr<const MailTemplates> templates;
};

class OutboxWorker {
 public:
  OutboxWorker(Store& store, MailTransport& transport, OutboxSettings settings);

  void start();
  void stop();

  // One claim's delivery attempts on `thread` (one of this worker's).
  // held_back: the claim's mails were all of accounts held elsewhere and
  // are due again later (interface.md 8.2); others may be due now.
  enum class Claim { delivered, held_back, nothing_due, store_failed };
  Claim deliver_one(PeriodicThread& thread);

  // Delivery attempts so far, for GET /metrics.
  std::uint64_t sent() const { return sent_.load(std::memory_order_relaxed); }
  std::uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }  // retried
  std::uint64_t rejected() const { return rejected_.load(std::memory_order_relaxed); }  // dropped

  // Delay before attempt number `attempts + 1`.
  static Duration backoff(int attempts, Duration first, Duration max);

  // Between attempts to mark a sent mail sent (see mark_sent).
  static constexpr Duration kFirstMarkRetry = std::chrono::milliseconds(250);
  static constexpr Duration kMaxMarkRetry = std::chrono::seconds(10);
  // How long the sends of one claim should take, by the recent average (a
  // claim stops starting sends at twice that), and how many mails a claim
  // takes at most.
  static constexpr Duration kClaimBudget = std::chrono::milliseconds(20);
  static constexpr std::int64_t kMaxClaim = 32;

 private:
  // Which mail a delivery thread claims next: a due one, or, when probing a
  // relay that is down or catching up once it is back, the earliest pending
  // one, due or not.
  enum class Pick { due, earliest_pending };
  Pick pick_next(Millis now, bool& probing);
  void note_relay(bool answered, bool probing);
  void deliver_due(PeriodicThread& thread);
  struct Claimed;
  static void wipe_claims(std::vector<Claimed>& batch);
  StoreStatus claim(Pick pick, Millis now, Millis lease_until, std::vector<Claimed>& batch,
                    std::size_t& held_back);
  bool may_send_another(Millis claimed_at, Millis lease_until) const;
  std::size_t claim_size() const;
  void note_delivery_time(std::chrono::microseconds took);
  std::string send(Claimed& claimed, Millis now, bool& permanent);
  void release(std::span<Claimed> untried, Millis lease_until);
  void log_dropped(const std::vector<Claimed>& batch);
  StoreStatus remove_rejected(const Claimed& claimed, const std::string& error);
  StoreStatus reschedule_failed(const Claimed& claimed, const std::string& error);
  bool send_claimed(Claimed& claimed, Millis now, bool probing,
                    std::vector<const OutboxRecord*>& sent, StoreStatus& status);
  std::size_t send_batch(PeriodicThread& thread, std::vector<Claimed>& batch, Millis now,
                         Millis lease_until, bool probing, std::vector<const OutboxRecord*>& sent,
                         StoreStatus& status);
  bool mark_sent(PeriodicThread& thread, std::vector<const OutboxRecord*> mails,
                 Millis lease_until);

  Store& store_;
  MailTransport& transport_;
  OutboxSettings settings_;
  std::vector<std::unique_ptr<PeriodicThread>> threads_;
  std::atomic<bool> relay_down_{false};
  std::atomic<bool> catching_up_{false};
  std::atomic<bool> probing_{false};
  std::atomic<Millis> last_probe_{0};
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::atomic<std::uint64_t> rejected_{0};
  // Microseconds per delivered mail, recent average; starts at the whole
  // budget, so that the first claims take one mail each.
  std::atomic<std::int64_t> send_micros_{
      std::chrono::duration_cast<std::chrono::microseconds>(kClaimBudget).count()};
};

}  // namespace authd
