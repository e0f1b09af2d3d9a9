#include "auth/events/notices.hpp"

#include <array>
#include <utility>

#include "store/transaction.hpp"

namespace authd {
namespace {

constexpr std::string_view kPrefix = "notice_";

constexpr std::array<std::pair<NoticeTopic, std::string_view>, 6> kTopics = {{
    {NoticeTopic::password_changed, "password_changed"},
    {NoticeTopic::email_changed, "email_changed"},
    {NoticeTopic::mfa_enabled, "mfa_enabled"},
    {NoticeTopic::mfa_disabled, "mfa_disabled"},
    {NoticeTopic::passkey_added, "passkey_added"},
    {NoticeTopic::passkey_removed, "passkey_removed"},
}};

constexpr std::array<std::pair<NoticeActor, std::string_view>, 3> kActors = {{
    {NoticeActor::self, "self"},
    {NoticeActor::reset, "reset"},
    {NoticeActor::admin, "admin"},
}};

bool sends(const NoticeSettings& settings, NoticeTopic topic) {
  switch (topic) {
    case NoticeTopic::password_changed:
      return settings.password_changed;
    case NoticeTopic::email_changed:
      return settings.email_changed;
    case NoticeTopic::mfa_enabled:
    case NoticeTopic::mfa_disabled:
    case NoticeTopic::passkey_added:
    case NoticeTopic::passkey_removed:
      return settings.mfa_changed;
  }
  return false;
}

}  // namespace

std::string_view notice_mail_name(NoticeTopic topic) {
  for (const auto& [each, name] : kTopics)
    if (each == topic) return name;
  return {};
}

std::string notice_kind(Notice notice) {
  std::string kind(kPrefix);
  kind.append(notice_mail_name(notice.topic)).append(":");
  for (const auto& [actor, name] : kActors)
    if (actor == notice.actor) kind.append(name);
  return kind;
}

std::optional<Notice> parse_notice_kind(std::string_view kind) {
  if (kind.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  kind.remove_prefix(kPrefix.size());
  std::size_t colon = kind.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::optional<Notice> notice;
  for (const auto& [topic, name] : kTopics)
    if (name == kind.substr(0, colon)) notice = Notice{topic, NoticeActor::self};
  if (!notice) return std::nullopt;
  for (const auto& [actor, name] : kActors) {
    if (name != kind.substr(colon + 1)) continue;
    notice->actor = actor;
    return notice;
  }
  return std::nullopt;
}

std::optional<NoticeSettings> parse_notify_list(std::string_view list, std::string& problem) {
  if (list == "none") return NoticeSettings{false, false, false};
  NoticeSettings settings{false, false, false};
  while (true) {
    std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    if (name == "password-changed") {
      settings.password_changed = true;
    } else if (name == "email-changed") {
      settings.email_changed = true;
    } else if (name == "mfa-changed") {
      settings.mfa_changed = true;
    } else {
      problem = "unknown notification '" + std::string(name) +
                "': use password-changed, email-changed, mfa-changed (comma-separated) or none";
      return std::nullopt;
    }
    if (comma == std::string_view::npos) return settings;
    list.remove_prefix(comma + 1);
  }
}

std::string notify_list(const NoticeSettings& settings) {
  std::string list;
  auto add = [&list](bool on, std::string_view name) {
    if (!on) return;
    if (!list.empty()) list += ",";
    list += name;
  };
  add(settings.password_changed, "password-changed");
  add(settings.email_changed, "email-changed");
  add(settings.mfa_changed, "mfa-changed");
  return list.empty() ? "none" : list;
}

void queue_notice(Transaction& tx, const NoticeSettings& settings, Notice notice,
                  const UserRecord& user, std::string_view to, Millis now) {
  if (!sends(settings, notice.topic)) return;
  OutboxRecord mail;
  mail.kind = notice_kind(notice);
  mail.user_id = user.id;
  mail.email = std::string(to);
  mail.created_at = now;  // the time of the change, as the mail tells it
  mail.next_attempt_at = now;
  tx.outbox().add(mail);
}

}  // namespace authd
