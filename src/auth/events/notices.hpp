// Notification mails (interface.md 14.3): the account's owner is told when
// its password, its e-mail address or its second factor changed. Each is an
// outbox row written in the transaction of the change; the outbox worker
// renders it at delivery (mail/message.hpp, notice_mail) and mints nothing.
// The row carries no more than any mail: its kind says what changed and who
// changed it ("notice_password_changed:admin"), its created_at when, its
// user_id whose account, its email where it goes (for a change of address,
// the old one).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "auth/policy.hpp"
#include "store/records.hpp"

namespace authd {

class Transaction;

// What changed. The mails of mfa_enabled / mfa_disabled speak of an
// authenticator app (TOTP), those of passkey_added / passkey_removed of a
// passkey (interface.md 16); --notify's mfa-changed covers all four.
enum class NoticeTopic {
  password_changed,
  email_changed,
  mfa_enabled,
  mfa_disabled,
  passkey_added,
  passkey_removed
};
// Who made the change: the owner signed in, the owner through a reset link,
// or an operator (admin API or CLI).
enum class NoticeActor { self, reset, admin };

struct Notice {
  NoticeTopic topic = NoticeTopic::password_changed;
  NoticeActor actor = NoticeActor::self;
  bool operator==(const Notice&) const = default;
};

// The outbox kind of a notice, and back (nothing: not a notice's kind).
std::string notice_kind(Notice notice);
std::optional<Notice> parse_notice_kind(std::string_view kind);

// The name of its mail templates (mail/templates.hpp): "password_changed".
std::string_view notice_mail_name(NoticeTopic topic);

// --notify: a comma-separated list of password-changed, email-changed and
// mfa-changed, or none. Nothing, and `problem` set, for anything else.
std::optional<NoticeSettings> parse_notify_list(std::string_view list, std::string& problem);
// The list that parse_notify_list reads back into `settings`.
std::string notify_list(const NoticeSettings& settings);

// In the transaction of the change: queues `notice` for `user`, mailed to
// `to` (the account's address; the old one when it changed), unless
// `settings` turned that kind off.
void queue_notice(Transaction& tx, const NoticeSettings& settings, Notice notice,
                  const UserRecord& user, std::string_view to, Millis now);

}  // namespace authd
