#include "mail/outbox_worker.hpp"

#include <sodium.h>

#include <algorithm>

#include "auth/email.hpp"
#include "auth/notices.hpp"
#include "auth/recovery.hpp"
#include "auth/signup.hpp"
#include "core/log.hpp"
#include "core/wipe.hpp"
#include "mail/message.hpp"

namespace authd {
namespace {

// What a claimed mail turns into at delivery, decided in the claim's
// transaction: the token minted there, or nothing to send.
struct Resolved {
  enum class Kind { dropped, reset, signup, account_exists, notice } kind = Kind::dropped;
  std::string token;  // reset, signup
  std::optional<Notice> notice;
  std::optional<std::string> display_name;  // notice
};

Resolved resolved_as(Resolved::Kind kind, std::string token = {}) {
  Resolved resolved;
  resolved.kind = kind;
  resolved.token = std::move(token);
  return resolved;
}

Resolved resolve(Transaction& tx, const OutboxRecord& mail, Millis now,
                 const OutboxSettings& settings) {
  // A notification (interface.md 14.3) goes while its account exists
  // (erasing an account erases its queued mail too); nothing is minted.
  if (std::optional<Notice> notice = parse_notice_kind(mail.kind)) {
    std::optional<UserRecord> user = tx.users().by_id(mail.user_id);
    if (!user) return {};
    Resolved resolved = resolved_as(Resolved::Kind::notice);
    resolved.notice = notice;
    resolved.display_name = user->display_name;
    return resolved;
  }
  if (mail.kind == kSignupMailKind) {
    SignupMail signup = prepare_signup_mail(tx, mail, now, settings.signup_token_lifetime);
    if (signup.account_exists) return resolved_as(Resolved::Kind::account_exists);
    if (signup.dropped()) return {};
    return resolved_as(Resolved::Kind::signup, std::move(signup.token));
  }
  std::optional<std::string> token = mint_reset_token(tx, mail, now, settings.reset_token_lifetime);
  if (!token) return {};
  return resolved_as(Resolved::Kind::reset, std::move(*token));
}

MailMessage compose(const Resolved& resolved, const OutboxRecord& mail, Millis now,
                    const OutboxSettings& settings) {
  const MailTemplates& templates =
      settings.templates ? *settings.templates : MailTemplates::built_in();
  switch (resolved.kind) {
    case Resolved::Kind::signup:
      return signup_mail(settings.from, mail.email, settings.public_url, resolved.token,
                         settings.signup_token_lifetime, now, templates);
    case Resolved::Kind::account_exists:
      return account_exists_mail(settings.from, mail.email, settings.public_url, now, templates);
    case Resolved::Kind::notice:
      return notice_mail(settings.from,
                         {*resolved.notice, mail.email, resolved.display_name, mail.created_at},
                         settings.public_url, now, templates);
    case Resolved::Kind::reset:
    case Resolved::Kind::dropped:
      break;
  }
  return password_reset_mail(settings.from, mail.email, settings.public_url, resolved.token,
                             settings.reset_token_lifetime, now, templates);
}

}  // namespace

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
  while (!thread.stopping() && deliver_one(thread)) {
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

// The relay has the mail; only the mark keeps it from being claimed and
// sent again, with a fresh token, once its lease runs out. So a mark that
// fails (the database briefly unreachable or locked) is tried again, with
// backoff, for as long as it takes: the mark succeeds only while the mail
// is still held under this claim's lease (mark_mail_sent), so trying past
// the lease is safe, and as long as nothing claimed it again meanwhile (a
// single instance is blocked here; another instance may, once the lease has
// run out) the mail stays sent once. This delivery thread sends nothing else
// while it waits: with the database unreachable it could not claim anything
// anyway.
// Left behind only when the worker stops, or another claim took the mail:
// then it is (or has been) delivered again, and only the newer link works.
bool OutboxWorker::mark_sent(PeriodicThread& thread, const OutboxRecord& mail, Millis lease_until) {
  Duration wait = kFirstMarkRetry;
  for (int attempt = 1;; ++attempt) {
    bool marked = false;
    StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
      marked = tx.outbox().mark_sent(mail.id, now_millis(), lease_until);
    });
    if (status == StoreStatus::ok) {
      if (!marked)  // our lease ran out and another claim took it
        log::warn("mail_sent_twice", {{"mail_id", mail.id}, {"to", mask_email(mail.email)}});
      return true;
    }
    log::warn("mail_mark_failed", {{"mail_id", mail.id}, {"attempt", attempt}});
    if (!thread.pause(wait)) {
      log::warn("mail_mark_abandoned", {{"mail_id", mail.id}, {"reason", "stopping"}});
      return false;
    }
    wait = std::min(wait * 2, kMaxMarkRetry);
  }
}

bool OutboxWorker::deliver_one(PeriodicThread& thread) {
  Millis now = now_millis();
  bool probing = false;
  Pick pick = pick_next(now, probing);
  Millis lease_until = now + settings_.lease.count();
  std::optional<OutboxRecord> mail;
  Resolved resolved;
  StoreStatus status = store_.run(Store::Mode::write, [&](Transaction& tx) {
    mail = pick == Pick::due ? tx.outbox().claim_due(now, lease_until)
                             : tx.outbox().claim_pending(now, lease_until);
    if (!mail) return;
    resolved = resolve(tx, *mail, now, settings_);
    // A reset request for an address without an enabled account (there
    // never was one, or it was disabled or deleted since): the request
    // goes, with no token minted. A sign-up is never dropped this way.
    if (resolved.kind == Resolved::Kind::dropped) tx.outbox().remove(mail->id);
  });
  // A sign-up's password hash is stored now (or void): this copy goes.
  if (mail && mail->password_hash) wipe(*mail->password_hash);
  if (status != StoreStatus::ok || !mail) {
    if (pick == Pick::earliest_pending && status == StoreStatus::ok) catching_up_ = false;
    if (probing) probing_ = false;
    return false;
  }
  if (resolved.kind == Resolved::Kind::dropped) {
    if (probing) probing_ = false;
    log::info("mail_dropped",
              {{"mail_id", mail->id},
               {"reason", parse_notice_kind(mail->kind) ? "no account" : "no enabled account"}});
    return true;
  }

  MailMessage message = compose(resolved, *mail, now, settings_);
  wipe(resolved.token);
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
    sent_.fetch_add(1, std::memory_order_relaxed);
    log::info("mail_sent", {{"mail_id", mail->id}, {"to", mask_email(mail->email)}});
    return mark_sent(thread, *mail, lease_until);
  }
  if (permanent) {
    // Retrying cannot help: the mail goes, like one whose account went.
    status = store_.run(Store::Mode::write, [&](Transaction& tx) { tx.outbox().remove(mail->id); });
    rejected_.fetch_add(1, std::memory_order_relaxed);
    log::warn("mail_rejected",
              {{"mail_id", mail->id}, {"to", mask_email(mail->email)}, {"error", error}});
  } else {
    int attempts = mail->attempts + 1;
    Millis next = done + backoff(attempts, settings_.first_retry, settings_.max_retry).count();
    status = store_.run(Store::Mode::write, [&](Transaction& tx) {
      tx.outbox().reschedule(mail->id, attempts, next, error);
    });
    failures_.fetch_add(1, std::memory_order_relaxed);
    log::warn("mail_failed", {{"mail_id", mail->id}, {"attempt", attempts}, {"error", error}});
  }
  return status == StoreStatus::ok;
}

}  // namespace authd
