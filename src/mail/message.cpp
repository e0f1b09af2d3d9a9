#include "mail/message.hpp"

#include <ctime>

#include <fmt/format.h>

#include "core/wipe.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

// "Sat, 21 Nov 2026 09:30:00 +0000" (RFC 5322 section 3.3)
std::string rfc5322_date(Millis at) {
  std::time_t t = static_cast<std::time_t>(at / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return fmt::format("{}, {:02} {} {:04} {:02}:{:02}:{:02} +0000", kDays[tm.tm_wday], tm.tm_mday,
                     kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string_view without_trailing_slash(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return url;
}

// The host part of the public URL names our Message-IDs.
std::string url_host(std::string_view url) {
  auto scheme_end = url.find("://");
  if (scheme_end != std::string_view::npos) url.remove_prefix(scheme_end + 3);
  url = url.substr(0, url.find_first_of("/:?#"));
  return url.empty() ? "authd.invalid" : std::string(url);
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Text bodies: normalise line endings to CRLF as RFC 5322 requires.
std::string crlf(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace

std::string render_rfc5322(const MailMessage& m) {
  std::string head = fmt::format(
      "Date: {}\r\nFrom: {}\r\nTo: {}\r\nSubject: {}\r\nMessage-ID: {}\r\n"
      "MIME-Version: 1.0\r\n",
      rfc5322_date(m.date), m.from, m.to, m.subject, m.message_id);
  constexpr std::string_view kText =
      "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n";
  if (m.html_body.empty()) return fmt::format("{}{}\r\n{}", head, kText, crlf(m.text_body));
  // A random boundary cannot occur in the bodies by chance.
  std::string boundary = "=_authd_" + new_secret_token("");
  return fmt::format(
      "{}Content-Type: multipart/alternative; boundary=\"{}\"\r\n\r\n"
      "--{}\r\n{}\r\n{}\r\n"
      "--{}\r\nContent-Type: text/html; charset=utf-8\r\n"
      "Content-Transfer-Encoding: 8bit\r\n\r\n{}\r\n"
      "--{}--\r\n",
      head, boundary, boundary, kText, crlf(m.text_body), boundary, crlf(m.html_body), boundary);
}

std::string reset_link(std::string_view public_url, std::string_view token) {
  return fmt::format("{}/reset#token={}", without_trailing_slash(public_url), token);
}

MailMessage password_reset_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, std::string_view token,
                                Duration lifetime, Millis now) {
  MailMessage m;
  m.from = std::string(from);
  m.to = std::string(to);
  m.subject = "Reset your password";
  m.date = now;
  m.message_id = fmt::format("<{}@{}>", new_uuid_v7(now), url_host(public_url));
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(lifetime).count();
  m.text_body = fmt::format(
      "Someone asked to reset the password of the account for {}.\n\n"
      "To choose a new password, open this link within {} minutes:\n\n{}\n\n"
      "The link works once. If you did not ask for this, ignore this message:\n"
      "your password stays as it is.\n",
      to, minutes, reset_link(public_url, token));
  std::string link = html_escape(reset_link(public_url, token));
  m.html_body = fmt::format(
      "<!DOCTYPE html>\n<html><body>\n"
      "<p>Someone asked to reset the password of the account for {}.</p>\n"
      "<p>To choose a new password, open this link within {} minutes:</p>\n"
      "<p><a href=\"{}\">Choose a new password</a></p>\n"
      "<p>The link works once. If you did not ask for this, ignore this message: "
      "your password stays as it is.</p>\n"
      "</body></html>\n",
      html_escape(to), minutes, link);
  wipe(link);
  return m;
}

}  // namespace authd
