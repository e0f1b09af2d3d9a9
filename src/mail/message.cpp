#include "mail/message.hpp"

#include <ctime>
#include <iterator>

#include <fmt/format.h>

#include "core/wipe.hpp"
#include "core/wiping_allocator.hpp"
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

WipedString html_escape(std::string_view text) {
  WipedString out;
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
WipedString crlf(std::string_view text) {
  WipedString out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

std::string_view view(const WipedString& text) { return {text.data(), text.size()}; }

// fmt::format for text that holds a reset link. fmt's buffer is on the
// heap through the wiping allocator (its inline part is one byte), so
// neither it nor the copies left as it grows outlive the call; the result
// is one allocation of the exact size, which the caller wipes.
template <class... Args>
std::string format_secret(fmt::format_string<Args...> format, Args&&... args) {
  fmt::basic_memory_buffer<char, 1, WipingAllocator<char>> buffer;
  buffer.reserve(4096);
  fmt::format_to(std::back_inserter(buffer), format, std::forward<Args>(args)...);
  std::string text(buffer.data(), buffer.size());
  sodium_memzero(buffer.data(), buffer.size());
  return text;
}

}  // namespace

std::string render_rfc5322(const MailMessage& m) {
  std::string head = fmt::format(
      "Date: {}\r\nFrom: {}\r\nTo: {}\r\nSubject: {}\r\nMessage-ID: {}\r\n"
      "MIME-Version: 1.0\r\n",
      rfc5322_date(m.date), m.from, m.to, m.subject, m.message_id);
  constexpr std::string_view kText =
      "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n";
  const WipedString text = crlf(m.text_body);
  if (m.html_body.empty()) return format_secret("{}{}\r\n{}", head, kText, view(text));
  const WipedString html = crlf(m.html_body);
  // A random boundary cannot occur in the bodies by chance.
  std::string boundary = "=_authd_" + new_secret_token("");
  return format_secret(
      "{}Content-Type: multipart/alternative; boundary=\"{}\"\r\n\r\n"
      "--{}\r\n{}\r\n{}\r\n"
      "--{}\r\nContent-Type: text/html; charset=utf-8\r\n"
      "Content-Transfer-Encoding: 8bit\r\n\r\n{}\r\n"
      "--{}--\r\n",
      head, boundary, boundary, kText, view(text), boundary, view(html), boundary);
}

namespace {

// {public_url}{path}#token=<token>, built in place, one allocation:
// fmt::format would leave a copy in its buffer on the stack.
std::string link_with_token(std::string_view public_url, std::string_view path,
                            std::string_view token) {
  constexpr std::string_view kFragment = "#token=";
  std::string_view base = without_trailing_slash(public_url);
  std::string link;
  link.reserve(base.size() + path.size() + kFragment.size() + token.size());
  link.append(base).append(path).append(kFragment).append(token);
  return link;
}

// A message's envelope and headers; the caller writes the bodies.
MailMessage new_mail(std::string_view from, std::string_view to, std::string subject,
                     std::string_view public_url, Millis now) {
  MailMessage m;
  m.from = std::string(from);
  m.to = std::string(to);
  m.subject = std::move(subject);
  m.date = now;
  m.message_id = fmt::format("<{}@{}>", new_uuid_v7(now), url_host(public_url));
  return m;
}

// "24 hours", "1 hour", "90 minutes".
std::string in_words(Duration lifetime) {
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(lifetime).count();
  if (minutes >= 60 && minutes % 60 == 0)
    return fmt::format("{} hour{}", minutes / 60, minutes == 60 ? "" : "s");
  return fmt::format("{} minute{}", minutes, minutes == 1 ? "" : "s");
}

}  // namespace

std::string reset_link(std::string_view public_url, std::string_view token) {
  return link_with_token(public_url, "/reset", token);
}

std::string verify_link(std::string_view public_url, std::string_view token) {
  return link_with_token(public_url, "/verify", token);
}

MailMessage password_reset_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, std::string_view token,
                                Duration lifetime, Millis now) {
  MailMessage m = new_mail(from, to, "Reset your password", public_url, now);
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(lifetime).count();
  std::string link = reset_link(public_url, token);
  m.text_body = format_secret(
      "Someone asked to reset the password of the account for {}.\n\n"
      "To choose a new password, open this link within {} minutes:\n\n{}\n\n"
      "The link works once. If you did not ask for this, ignore this message:\n"
      "your password stays as it is.\n",
      to, minutes, link);
  const WipedString escaped_link = html_escape(link);
  wipe(link);
  m.html_body = format_secret(
      "<!DOCTYPE html>\n<html><body>\n"
      "<p>Someone asked to reset the password of the account for {}.</p>\n"
      "<p>To choose a new password, open this link within {} minutes:</p>\n"
      "<p><a href=\"{}\">Choose a new password</a></p>\n"
      "<p>The link works once. If you did not ask for this, ignore this message: "
      "your password stays as it is.</p>\n"
      "</body></html>\n",
      view(html_escape(to)), minutes, view(escaped_link));
  return m;
}

MailMessage signup_mail(std::string_view from, std::string_view to, std::string_view public_url,
                        std::string_view token, Duration lifetime, Millis now) {
  MailMessage m = new_mail(from, to, "Confirm your new account", public_url, now);
  const std::string within = in_words(lifetime);
  std::string link = verify_link(public_url, token);
  m.text_body = format_secret(
      "Someone asked to create an account for {}.\n\n"
      "To confirm that this address is yours and create the account, open this link\n"
      "within {}:\n\n{}\n\n"
      "The link works once. If you did not ask for this, ignore this message:\n"
      "no account will be created.\n",
      to, within, link);
  const WipedString escaped_link = html_escape(link);
  wipe(link);
  m.html_body = format_secret(
      "<!DOCTYPE html>\n<html><body>\n"
      "<p>Someone asked to create an account for {}.</p>\n"
      "<p>To confirm that this address is yours and create the account, open this link "
      "within {}:</p>\n"
      "<p><a href=\"{}\">Confirm and create my account</a></p>\n"
      "<p>The link works once. If you did not ask for this, ignore this message: "
      "no account will be created.</p>\n"
      "</body></html>\n",
      view(html_escape(to)), within, view(escaped_link));
  return m;
}

MailMessage account_exists_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, Millis now) {
  MailMessage m = new_mail(from, to, "You already have an account", public_url, now);
  m.text_body = fmt::format(
      "Someone asked to create an account for {}, but this address already has one.\n"
      "Nothing has changed: no new account was created, and your password stays as\n"
      "it is.\n\n"
      "If it was you and you have forgotten your password, use \"Forgot password\"\n"
      "where you sign in (it asks {}/forgot for a reset link): you will get an e-mail\n"
      "with a link to choose a new one.\n\n"
      "If you did not ask for this, ignore this message.\n",
      to, without_trailing_slash(public_url));
  m.html_body = fmt::format(
      "<!DOCTYPE html>\n<html><body>\n"
      "<p>Someone asked to create an account for {}, but this address already has one. "
      "Nothing has changed: no new account was created, and your password stays as it is.</p>\n"
      "<p>If it was you and you have forgotten your password, use &quot;Forgot password&quot; "
      "where you sign in (it asks {}/forgot for a reset link): you will get an e-mail with "
      "a link to choose a new one.</p>\n"
      "<p>If you did not ask for this, ignore this message.</p>\n"
      "</body></html>\n",
      view(html_escape(to)), view(html_escape(without_trailing_slash(public_url))));
  return m;
}

}  // namespace authd
