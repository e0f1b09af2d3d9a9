// An e-mail as authd sends it, and the mails authd sends: password reset,
// sign-up verification, the notice that an address already has an account,
// and the notifications of interface.md 14.3; each rendered from its
// templates (mail/templates.hpp, docs/reference/mail-templates.md).
#pragma once

#include <optional>
#include <string>

#include "auth/events/notices.hpp"
#include "core/duration.hpp"
#include "core/time.hpp"
#include "mail/templates.hpp"

namespace authd {

struct MailMessage {
  std::string from;  // "authd <no-reply@example.com>"
  std::string to;    // a bare address
  std::string subject;
  std::string text_body;
  std::string html_body;   // optional alternative to text_body
  std::string message_id;  // "<...@host>"
  Millis date = 0;
};

// RFC 5322 text with CRLF line endings, ready for SMTP or a .eml file: plain
// text, or multipart/alternative (text first) when there is an HTML body.
std::string render_rfc5322(const MailMessage& message);

// The reset link is {public_url}/reset#token=<token>: the fragment never
// reaches a server log or a Referer header.
std::string reset_link(std::string_view public_url, std::string_view token);

MailMessage password_reset_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, std::string_view token,
                                Duration lifetime, Millis now,
                                const MailTemplates& templates = MailTemplates::built_in());

// The sign-up link is {public_url}/verify#token=<token> (interface.md 11.4).
std::string verify_link(std::string_view public_url, std::string_view token);

// Who asked for a sign-up mail, and when: each sign-up mail says it
// (interface.md 11.5), so that the owner of an address can tell a request
// of their own from somebody else's.
struct MailRequester {
  Millis at = 0;
  std::string client_address;  // empty: not recorded (a mail queued before it was)
};

MailMessage signup_mail(std::string_view from, std::string_view to, std::string_view public_url,
                        std::string_view token, Duration lifetime, Millis now,
                        const MailRequester& requester,
                        const MailTemplates& templates = MailTemplates::built_in());

// A sign-up for an address that has an account (interface.md 11.4): says
// so, carries no token, and tells the owner how to reset the password.
MailMessage account_exists_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, Millis now,
                                const MailRequester& requester,
                                const MailTemplates& templates = MailTemplates::built_in());

// The sign-in link is {public_url}/signin/email#token=<token> (interface.md 19.2).
std::string signin_link(std::string_view public_url, std::string_view token);

// A passwordless sign-in mail (interface.md 19.2): the link and the 8-digit
// code, both valid for `lifetime`.
MailMessage email_signin_mail(std::string_view from, std::string_view to,
                              std::string_view public_url, std::string_view token,
                              std::string_view code, Duration lifetime, Millis now,
                              const MailTemplates& templates = MailTemplates::built_in());

// A sign-in asked for by an address without an account, with sign-up open
// (interface.md 19.5): a link to the page's sign-up form, no token, no code.
MailMessage email_signin_signup_mail(std::string_view from, std::string_view to,
                                     std::string_view public_url, Millis now,
                                     const MailTemplates& templates = MailTemplates::built_in());

// What a notification (interface.md 14.3) says: what changed and who
// changed it, when, to whom it goes. Never a password, token, hash or code.
struct NoticeFacts {
  Notice notice;
  std::string to;  // the account's address; the old one when it changed
  std::optional<std::string> display_name;
  Millis changed_at = 0;
};

MailMessage notice_mail(std::string_view from, const NoticeFacts& facts,
                        std::string_view public_url, Millis now,
                        const MailTemplates& templates = MailTemplates::built_in());

}  // namespace authd
