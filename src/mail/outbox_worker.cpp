#include "mail/outbox_worker.hpp"

#include <sodium.h>

#include <algorithm>

#include "auth/email.hpp"
#include "auth/recovery.hpp"
#include "core/log.hpp"
#include "core/wipe.hpp"

namespace authd {
namespace {}  // namespace

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
  Duration delay = first;
  for (int i = 1; i < attempts && delay < max; ++i) delay *= 2;
  return std::min(delay, max);
}

void OutboxWorker::deliver_due(PeriodicThread& thread) {
  while (!thread.stopping() && deliver_one()) {
  }
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

bool OutboxWorker::deliver_one() {
  Millis now = now_millis();
  bool probing = false;
  Pick pick = pick_next(now, probing);
  std::optional<OutboxRecord> mail;
  std::optional<std::string> token;
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    Millis lease_until = now + settings_.lease.count();
    mail = pick == Pick::due ? tx.claim_due_mail(now, lease_until)
                             : tx.claim_pending_mail(now, lease_until);
    if (!mail) return;
    token = mint_reset_token(tx, *mail, now, settings_.reset_token_lifetime);
    if (!token) tx.delete_mail(mail->id);  // account disabled or deleted since
  });
  if (status != StoreStatus::ok || !mail) {
    if (pick == Pick::earliest_pending && status == StoreStatus::ok) catching_up_ = false;
    if (probing) probing_ = false;
    return false;
  }
  if (!token) {
    if (probing) probing_ = false;
    log::info("mail_dropped", {{"mail_id", mail->id}, {"reason", "account disabled or gone"}});
    return true;
  }

  MailMessage message = password_reset_mail(settings_.from, mail->email, settings_.public_url,
                                            *token, settings_.reset_token_lifetime, now);
  wipe(*token);
  std::string error;
  bool permanent = false;
  try {
    transport_.send(message);
  } catch (const MailError& e) {
    error = e.what();
    permanent = e.permanent();
  }
  wipe(message.text_body);
  wipe(message.html_body);

  Millis done = now_millis();
  note_relay(error.empty() || permanent, probing);
  if (error.empty()) {
    status =
        store_.run(Store::Mode::write, [&](Transaction& tx) { tx.mark_mail_sent(mail->id, done); });
    sent_.fetch_add(1, std::memory_order_relaxed);
    log::info("mail_sent", {{"mail_id", mail->id}, {"to", mask_email(mail->email)}});
  } else if (permanent) {
    // Retrying cannot help: the mail goes, like one whose account went.
    status = store_.run(Store::Mode::write, [&](Transaction& tx) { tx.delete_mail(mail->id); });
    rejected_.fetch_add(1, std::memory_order_relaxed);
    log::warn("mail_rejected",
              {{"mail_id", mail->id}, {"to", mask_email(mail->email)}, {"error", error}});
  } else {
    int attempts = mail->attempts + 1;
    Millis next = done + backoff(attempts, settings_.first_retry, settings_.max_retry).count();
    status = store_.run(Store::Mode::write, [&](Transaction& tx) {
      tx.reschedule_mail(mail->id, attempts, next, error);
    });
    failures_.fetch_add(1, std::memory_order_relaxed);
    log::warn("mail_failed", {{"mail_id", mail->id}, {"attempt", attempts}, {"error", error}});
  }
  return status == StoreStatus::ok;
}

}  // namespace authd
