// An e-mail as authd sends it, and the mails authd sends: password reset,
// sign-up verification, and the notice that an address already has an
// account.
#pragma once

#include <string>

#include "core/duration.hpp"
#include "core/time.hpp"

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
                                Duration lifetime, Millis now);

// The sign-up link is {public_url}/verify#token=<token> (interface.md 11.4).
std::string verify_link(std::string_view public_url, std::string_view token);

MailMessage signup_mail(std::string_view from, std::string_view to, std::string_view public_url,
                        std::string_view token, Duration lifetime, Millis now);

// A sign-up for an address that has an account (interface.md 11.4): says
// so, carries no token, and tells the owner how to reset the password.
MailMessage account_exists_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, Millis now);

}  // namespace authd
