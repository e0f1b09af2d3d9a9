// An e-mail as authd sends it, and the password-reset mail in particular.
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

}  // namespace authd
