#include "mail/outbox_worker.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <span>

#include "auth/credentials/email.hpp"
#include "core/log.hpp"
#include "core/wipe.hpp"
#include "mail/message.hpp"
#include "mail/resolved_mail.hpp"

namespace authd {

OutboxWorker::OutboxWorker(Store& store, MailTransport& transport, OutboxSettings settings)
    : store_(store), transport_(transport), settings_(std::move(settings)) {
  // Complete before start(): each thread finds itself in threads_.
  for (std::size_t i = 0; i < std::max<std::size_t>(settings_.concurrency, 1); ++i) {
    threads_.push_back(std::make_unique<PeriodicThread>(settings_.poll_interval,
                                                        [this, i] { deliver_due(*threads_[i]); }));
  }
}

void OutboxWorker::start() {
  for (auto& thread : threads_) thread->start();
}

void OutboxWorker::stop() {
  for (auto& thread : threads_) thread->stop();
}

Duration OutboxWorker::backoff(int attempts, Duration first, Duration max) {
  return capped_backoff(attempts, first, max);
}

void OutboxWorker::deliver_due(PeriodicThread& thread) {
  Claim claim = Claim::delivered;
  while (!thread.stopping() && (claim == Claim::delivered || claim == Claim::held_back))
    claim = deliver_one(thread);
}

OutboxWorker::Pick OutboxWorker::pick_next(Millis now, bool& probing) {
  probing = false;
  if (catching_up_) return Pick::earliest_pending;
  if (!relay_down_ || now - last_probe_ < settings_.relay_probe.count()) return Pick::due;
  if (probing_.exchange(true)) return Pick::due;  // another thread probes
  last_probe_ = now;
  probing = true;
  return Pick::earliest_pending;
}

// `answered`: the relay took the mail or refused it for good (it is up);
// false: it failed for now (down, or not answering in time).
void OutboxWorker::note_relay(bool answered, bool probing) {
  if (answered && relay_down_.exchange(false)) {
    catching_up_ = true;
    log::info("mail_relay_back");
  } else if (!answered && !relay_down_.exchange(true)) {
    catching_up_ = false;
    last_probe_ = now_millis();
  }
  if (!answered) catching_up_ = false;
  if (probing) probing_ = false;
}

// How many due mails the next claim takes: as many as the recent sends say
// fit in kClaimBudget, so that a fast relay (or a run of requests for
// unknown addresses, which send nothing) costs two transactions per batch
// rather than two per mail, while a slow relay gets one mail per claim and
// keeps every delivery thread busy.
std::size_t OutboxWorker::claim_size() const {
  if (relay_down_) return 1;  // one probe at a time, no tokens minted in vain
  const std::int64_t per_mail =
      std::max<std::int64_t>(send_micros_.load(std::memory_order_relaxed), 1);
  const std::int64_t budget =
      std::chrono::duration_cast<std::chrono::microseconds>(kClaimBudget).count();
  return static_cast<std::size_t>(std::clamp<std::int64_t>(budget / per_mail, 1, kMaxClaim));
}

// A moving average of what one mail cost to deliver (nothing for one that
// was dropped); races between threads lose a sample, which is harmless.
void OutboxWorker::note_delivery_time(std::chrono::microseconds took) {
  const std::int64_t before = send_micros_.load(std::memory_order_relaxed);
  send_micros_.store((before * 3 + took.count()) / 4, std::memory_order_relaxed);
}

// The relay has the mails; only the mark keeps them from being claimed and
// sent again, with fresh tokens, once their lease runs out. So a mark that
// fails (the database briefly unreachable or locked) is tried again, with
// backoff, for as long as it takes: a mark succeeds only while the mail is
// still held under this claim's lease (mark_mail_sent), so trying past the
// lease is safe, and as long as nothing claimed it again meanwhile (a single
// instance is blocked here; another instance may, once the lease has run
// out) the mail stays sent once. This delivery thread sends nothing else
// while it waits: with the database unreachable it could not claim anything
// anyway.
// Left behind only when the worker stops, or another claim took the mail:
// then it is (or has been) delivered again, and only the newer link works.
bool OutboxWorker::mark_sent(PeriodicThread& thread, std::vector<const OutboxRecord*> mails,
                             Millis lease_until) {
  if (mails.empty()) return true;
  // In id order, not the claim's (due time): another worker's marks go in
  // that order too, and a statement that deletes several rows (an
  // erasure's) meets them in about their order of insertion. Two writers
  // that take several rows in one order cannot wait on each other in a
  // cycle (a claim never waits: SKIP LOCKED).
  std::sort(mails.begin(), mails.end(),
            [](const OutboxRecord* a, const OutboxRecord* b) { return a->id < b->id; });
  Duration wait = kFirstMarkRetry;
  for (int attempt = 1;; ++attempt) {
    std::vector<const OutboxRecord*> taken_over;
    StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
      taken_over.clear();
      const Millis at = now_millis();
      for (const OutboxRecord* mail : mails)
        if (!tx.outbox().mark_sent(mail->id, at, lease_until)) taken_over.push_back(mail);
    });
    if (status == StoreStatus::ok) {
      for (const OutboxRecord* mail : taken_over)  // our lease ran out and another claim took it
        log::warn("mail_sent_twice", {{"mail_id", mail->id}, {"to", mask_email(mail->email)}});
      return true;
    }
    log::warn("mail_mark_failed", {{"mail_id", mails.front()->id},
                                   {"mails", static_cast<std::int64_t>(mails.size())},
                                   {"attempt", attempt}});
    if (!thread.pause(wait)) {
      log::warn("mail_mark_abandoned", {{"mail_id", mails.front()->id}, {"reason", "stopping"}});
      return false;
    }
    wait = std::min(wait * 2, kMaxMarkRetry);
  }
}

// One mail of a claim: what the claim's transaction decided for it.
struct OutboxWorker::Claimed {
  OutboxRecord mail;
  Resolved resolved;
};

// The claimed mails not tried go back, unchanged, for any thread to claim.
void OutboxWorker::release(std::span<Claimed> untried, Millis lease_until) {
  auto held = [](const Claimed& claimed) {
    return claimed.resolved.kind != Resolved::Kind::dropped;
  };
  if (std::none_of(untried.begin(), untried.end(), held)) return;
  store_.run(Store::Mode::write, [&](Transaction& tx) {
    for (const Claimed& claimed : untried)  // a dropped one was removed in the claim
      if (held(claimed)) tx.outbox().release(claimed.mail.id, lease_until);
  });
  // A release that fails leaves them to their lease, after which they are
  // claimed again all the same.
}

// Sends one resolved mail; "" when the relay took it, else its error.
std::string OutboxWorker::send(Claimed& claimed, Millis now, bool& permanent) {
  MailMessage message = compose(claimed.resolved, claimed.mail, now, settings_);
  claimed.resolved.wipe_secrets();
  std::string error;
  try {
    transport_.send(message);
  } catch (const MailError& e) {
    error = e.what();
    permanent = e.permanent();
  }
  wipe(message.text_body);
  wipe(message.html_body);
  return error;
}

namespace {

// A sign-up's password hash, once stored (or void): the copy read goes.
void wipe_password_hash(OutboxRecord& mail) {
  if (mail.password_hash) wipe(*mail.password_hash);
}

// How long the mails of an account another transaction holds wait: long
// enough that the next claims take the other mails due, not these again.
constexpr std::chrono::milliseconds kHeldAccountRetry{1'000};

// Locks the accounts `mails` name (UserStore::lock_in_id_order_unless_held)
// and takes out of `mails` those of the accounts another transaction holds,
// giving them back untried, due a little later (interface.md 8.2); how many.
std::size_t hold_back_mails_of_held_accounts(Transaction& tx, std::vector<OutboxRecord>& mails,
                                             Millis now, Millis lease_until) {
  std::vector<std::string> emails, ids;
  for (const OutboxRecord& mail : mails) {
    if (parse_notice_kind(mail.kind))
      ids.push_back(mail.user_id);
    else
      emails.push_back(mail.email);
  }
  const HeldAccounts held = tx.users().lock_in_id_order_unless_held(emails, ids);
  if (held.ids.empty()) return 0;
  auto of_held_account = [&](const OutboxRecord& mail) {
    return parse_notice_kind(mail.kind)
               ? std::find(held.ids.begin(), held.ids.end(), mail.user_id) != held.ids.end()
               : std::find(held.emails.begin(), held.emails.end(), mail.email) != held.emails.end();
  };
  for (OutboxRecord& mail : mails) {
    if (!of_held_account(mail)) continue;
    // Never earlier than it was due (catching up takes mails not due yet).
    tx.outbox().postpone(mail.id, lease_until,
                         std::max<Millis>(mail.next_attempt_at, now + kHeldAccountRetry.count()));
    wipe_password_hash(mail);
  }
  return std::erase_if(mails, of_held_account);
}

}  // namespace

// What a claim holds in memory that must not outlive it: each sign-up's
// password hash and each token not sent.
void OutboxWorker::wipe_claims(std::vector<Claimed>& batch) {
  for (Claimed& claimed : batch) {
    wipe_password_hash(claimed.mail);
    claimed.resolved.wipe_secrets();
  }
}

// Claims due mails (or the earliest pending one) into `batch` and resolves
// them in the claim's transaction: tokens minted, mails without an account
// removed; `held_back`, those of accounts held elsewhere, given back.
StoreStatus OutboxWorker::claim(Pick pick, Millis now, Millis lease_until,
                                std::vector<Claimed>& batch, std::size_t& held_back) {
  std::vector<OutboxRecord> mails;
  auto wipe_hashes = [&] {
    for (OutboxRecord& mail : mails) wipe_password_hash(mail);
  };
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    wipe_claims(batch);  // a transaction tried again starts over
    batch.clear();
    wipe_hashes();
    mails.clear();
    held_back = 0;
    if (pick == Pick::due) {
      mails = tx.outbox().claim_due(now, lease_until, claim_size());
    } else if (auto pending = tx.outbox().claim_pending(now, lease_until)) {
      mails.push_back(std::move(*pending));
    }
    // The accounts the mails name are locked first, in id order (a notice
    // names its account by id, the others by address), and the tokens and
    // pending sign-ups are then written in address order: two claims
    // holding mails for the same accounts or addresses take their row
    // locks in one order, and on PostgreSQL cannot deadlock. An account
    // held elsewhere is not waited for (its change may be waiting for these
    // mails): its mails go back for a moment, untried.
    held_back = hold_back_mails_of_held_accounts(tx, mails, now, lease_until);
    std::vector<std::size_t> by_address(mails.size());
    std::iota(by_address.begin(), by_address.end(), std::size_t{0});
    // Stable: two mails to one address mint in claim order, so the one
    // sent last carries the live token.
    std::stable_sort(by_address.begin(), by_address.end(),
                     [&](std::size_t a, std::size_t b) { return mails[a].email < mails[b].email; });
    batch.resize(mails.size());
    for (std::size_t i : by_address) {
      Resolved resolved = resolve(tx, mails[i], now, settings_);
      // A reset request for an address without an enabled account (there
      // never was one, or it was disabled or deleted since): the request
      // goes, with no token minted. A sign-up is never dropped this way.
      if (resolved.kind == Resolved::Kind::dropped) tx.outbox().remove(mails[i].id);
      batch[i] = {std::move(mails[i]), std::move(resolved)};
    }
  });
  wipe_hashes();  // those a failed transaction left behind
  for (Claimed& claimed : batch) wipe_password_hash(claimed.mail);
  if (status == StoreStatus::ok && held_back > 0)
    log::debug("mails_held_back", {{"mails", held_back}, {"reason", "account_held"}});
  return status;
}

// Whether a claim begun at `claimed_at` may start sending one more of its
// mails: only while its sends have taken no more than twice their budget (a
// relay that turned slow leaves the rest to the other threads), and only if
// a send that takes the transport's whole time-out still ends inside the
// lease (past it, another claim could send the mail again).
bool OutboxWorker::may_send_another(Millis claimed_at, Millis lease_until) const {
  const Millis now = now_millis();
  const Millis budget = std::chrono::duration_cast<std::chrono::milliseconds>(kClaimBudget).count();
  return now - claimed_at <= 2 * budget && now + settings_.send_timeout.count() < lease_until;
}

// The mails the claim removed (no account for them): logged, and counted as
// deliveries that cost nothing.
void OutboxWorker::log_dropped(const std::vector<Claimed>& batch) {
  for (const Claimed& claimed : batch) {
    if (claimed.resolved.kind != Resolved::Kind::dropped) continue;
    note_delivery_time(std::chrono::microseconds(0));
    log::info(
        "mail_dropped",
        {{"mail_id", claimed.mail.id},
         {"reason", parse_notice_kind(claimed.mail.kind) ? "no account" : "no enabled account"}});
  }
}

// A mail the relay refused for good, with `error`: removed.
StoreStatus OutboxWorker::remove_rejected(const Claimed& claimed, const std::string& error) {
  // Retrying cannot help: the mail goes, like one whose account went.
  StoreStatus status =
      store_.run(Store::Mode::write, [&](Transaction& tx) { tx.outbox().remove(claimed.mail.id); });
  rejected_.fetch_add(1, std::memory_order_relaxed);
  log::warn(
      "mail_rejected",
      {{"mail_id", claimed.mail.id}, {"to", mask_email(claimed.mail.email)}, {"error", error}});
  return status;
}

// A mail the relay failed for now, with `error`: tried again after backoff.
StoreStatus OutboxWorker::reschedule_failed(const Claimed& claimed, const std::string& error) {
  const int attempts = claimed.mail.attempts + 1;
  const Millis retry_at =
      now_millis() + backoff(attempts, settings_.first_retry, settings_.max_retry).count();
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    tx.outbox().reschedule(claimed.mail.id, attempts, retry_at, error);
  });
  failures_.fetch_add(1, std::memory_order_relaxed);
  log::warn("mail_failed", {{"mail_id", claimed.mail.id}, {"attempt", attempts}, {"error", error}});
  return status;
}

// Sends one claimed mail and acts on the relay's answer: taken (into `sent`,
// marked later), refused for good (removed), or failed for now
// (rescheduled). `status` becomes that of the store write, if any. False
// when the relay failed: it is taken to be down.
bool OutboxWorker::send_claimed(Claimed& claimed, Millis now, bool probing,
                                std::vector<const OutboxRecord*>& sent, StoreStatus& status) {
  const auto started = std::chrono::steady_clock::now();
  bool permanent = false;
  const std::string error = send(claimed, now, permanent);
  note_delivery_time(std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started));
  note_relay(error.empty() || permanent, probing);
  if (error.empty()) {
    sent_.fetch_add(1, std::memory_order_relaxed);
    log::info("mail_sent", {{"mail_id", claimed.mail.id}, {"to", mask_email(claimed.mail.email)}});
    sent.push_back(&claimed.mail);
    return true;
  }
  if (permanent) {
    status = remove_rejected(claimed, error);
    return true;
  }
  status = reschedule_failed(claimed, error);
  return false;
}

// Sends the batch's mails in claim order, those sent into `sent`; returns
// the index of the first mail not tried.
std::size_t OutboxWorker::send_batch(PeriodicThread& thread, std::vector<Claimed>& batch,
                                     Millis now, Millis lease_until, bool probing,
                                     std::vector<const OutboxRecord*>& sent, StoreStatus& status) {
  std::size_t tried = 0;
  std::size_t next = 0;
  for (; next < batch.size(); ++next) {
    Claimed& claimed = batch[next];
    if (claimed.resolved.kind == Resolved::Kind::dropped) continue;  // removed in the claim
    // The first mail goes as a claim of one would; the rest while the sends
    // stay quick and inside the lease. Those not tried go back.
    if (thread.stopping() || (tried > 0 && !may_send_another(now, lease_until))) break;
    ++tried;
    if (!send_claimed(claimed, now, probing, sent, status))
      return next + 1;  // the relay is taken to be down: the rest are not tried now
  }
  return next;
}

OutboxWorker::Claim OutboxWorker::deliver_one(PeriodicThread& thread) {
  const Millis now = now_millis();
  bool probing = false;
  const Pick pick = pick_next(now, probing);
  const Millis lease_until = now + settings_.lease.count();
  std::vector<Claimed> batch;
  std::size_t held_back = 0;
  StoreStatus status = claim(pick, now, lease_until, batch, held_back);
  if (status == StoreStatus::ok && batch.empty() && held_back > 0) {
    // Catching up takes the earliest pending mail, due or not: that one
    // again. The due ones go as usual.
    if (pick == Pick::earliest_pending) catching_up_ = false;
    if (probing) probing_ = false;
    return Claim::held_back;  // others may be due now
  }
  if (status != StoreStatus::ok || batch.empty()) {
    wipe_claims(batch);
    if (pick == Pick::earliest_pending && status == StoreStatus::ok) catching_up_ = false;
    if (probing) probing_ = false;
    return status == StoreStatus::ok ? Claim::nothing_due : Claim::store_failed;
  }
  log_dropped(batch);
  std::vector<const OutboxRecord*> sent;
  const std::size_t next = send_batch(thread, batch, now, lease_until, probing, sent, status);
  if (probing) probing_ = false;
  wipe_claims(batch);  // the tokens not sent
  release(std::span(batch).subspan(next), lease_until);
  if (!sent.empty()) transport_.make_durable();
  const bool marked = mark_sent(thread, sent, lease_until);
  return marked && status == StoreStatus::ok ? Claim::delivered : Claim::store_failed;
}

}  // namespace authd
