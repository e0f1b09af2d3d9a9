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

std::string signin_link(std::string_view public_url, std::string_view token) {
  return link_with_token(public_url, "/signin/email", token);
}

namespace {

// The templates never see a link that carries a token: they get this
// placeholder, which no address, name or URL can contain (control
// characters), and the link is put in its place in the rendered text, one
// allocation that the caller wipes. So no copy of the token is left in the
// template engine's strings.
// The sign-in code (interface.md 19.2) is put in the same way.
constexpr std::string_view kLinkPlaceholder = "\x01link\x01";
constexpr std::string_view kCodePlaceholder = "\x01code\x01";

std::string with_secret(std::string_view rendered, std::string_view placeholder,
                        std::string_view secret) {
  std::size_t count = 0;
  for (std::size_t at = rendered.find(placeholder); at != std::string_view::npos;
       at = rendered.find(placeholder, at + placeholder.size()))
    ++count;
  std::string out;
  out.reserve(rendered.size() + count * secret.size());
  while (true) {
    std::size_t at = rendered.find(placeholder);
    out.append(rendered.substr(0, at));
    if (at == std::string_view::npos) return out;
    out.append(secret);
    rendered.remove_prefix(at + placeholder.size());
  }
}

std::string with_link(std::string_view rendered, std::string_view link) {
  return with_secret(rendered, kLinkPlaceholder, link);
}

// What every template gets (docs/reference/mail-templates.md).
kainjow::mustache::data common_data(std::string_view to, std::string_view public_url) {
  kainjow::mustache::data data;
  data.set("email", std::string(to));
  data.set("public_url", std::string(without_trailing_slash(public_url)));
  return data;
}

MailMessage from_templates(const MailTemplates& templates, std::string_view mail,
                           const kainjow::mustache::data& data, std::string_view from,
                           std::string_view to, std::string_view public_url, Millis now) {
  RenderedMail rendered = templates.render(mail, data);
  MailMessage m = new_mail(from, to, std::move(rendered.subject), public_url, now);
  m.text_body = std::move(rendered.text);
  m.html_body = std::move(rendered.html);
  return m;
}

// A mail with a link that carries a token: rendered with the placeholder,
// then the link (HTML-escaped in the HTML part) put in.
MailMessage with_token_link(const MailTemplates& templates, std::string_view mail,
                            kainjow::mustache::data data, std::string link, std::string_view from,
                            std::string_view to, std::string_view public_url, Millis now) {
  data.set("link", std::string(kLinkPlaceholder));
  MailMessage m = from_templates(templates, mail, data, from, to, public_url, now);
  std::string text = with_link(m.text_body, link);
  const WipedString escaped = html_escape<WipedString>(link);
  wipe(link);
  std::string html = with_link(m.html_body, view(escaped));
  m.text_body = std::move(text);
  m.html_body = std::move(html);
  return m;
}

// "2026-11-21 09:30 UTC"
std::string utc_time(Millis at) {
  std::time_t t = static_cast<std::time_t>(at / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02} UTC", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min);
}

// A sign-up mail's data: the common data, when it was asked for and, if
// recorded, from which client address (interface.md 11.5).
kainjow::mustache::data requested_data(std::string_view to, std::string_view public_url,
                                       const MailRequester& requester) {
  kainjow::mustache::data data = common_data(to, public_url);
  data.set("requested_at", utc_time(requester.at));
  if (!requester.client_address.empty()) data.set("client_address", requester.client_address);
  return data;
}

}  // namespace

MailMessage password_reset_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, std::string_view token,
                                Duration lifetime, Millis now, const MailTemplates& templates) {
  kainjow::mustache::data data = common_data(to, public_url);
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(lifetime).count();
  data.set("minutes", std::to_string(minutes));
  data.set("lifetime", in_words(lifetime));
  return with_token_link(templates, "password_reset", std::move(data),
                         reset_link(public_url, token), from, to, public_url, now);
}

MailMessage signup_mail(std::string_view from, std::string_view to, std::string_view public_url,
                        std::string_view token, Duration lifetime, Millis now,
                        const MailRequester& requester, const MailTemplates& templates) {
  kainjow::mustache::data data = requested_data(to, public_url, requester);
  data.set("lifetime", in_words(lifetime));
  return with_token_link(templates, "signup", std::move(data), verify_link(public_url, token), from,
                         to, public_url, now);
}

MailMessage account_exists_mail(std::string_view from, std::string_view to,
                                std::string_view public_url, Millis now,
                                const MailRequester& requester, const MailTemplates& templates) {
  return from_templates(templates, "account_exists", requested_data(to, public_url, requester),
                        from, to, public_url, now);
}

MailMessage email_signin_mail(std::string_view from, std::string_view to,
                              std::string_view public_url, std::string_view token,
                              std::string_view code, Duration lifetime, Millis now,
                              const MailTemplates& templates) {
  kainjow::mustache::data data = common_data(to, public_url);
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(lifetime).count();
  data.set("minutes", std::to_string(minutes));
  data.set("code", std::string(kCodePlaceholder));
  MailMessage m = with_token_link(templates, "email_signin", std::move(data),
                                  signin_link(public_url, token), from, to, public_url, now);
  // Digits only: the same text in both bodies. Never in the subject, which
  // relays log and lock screens show.
  for (std::string* part : {&m.text_body, &m.html_body}) {
    std::string with_code = with_secret(*part, kCodePlaceholder, code);
    wipe(*part);
    *part = std::move(with_code);
  }
  return m;
}

MailMessage email_signin_signup_mail(std::string_view from, std::string_view to,
                                     std::string_view public_url, Millis now,
                                     const MailTemplates& templates) {
  kainjow::mustache::data data = common_data(to, public_url);
  data.set("link", std::string(without_trailing_slash(public_url)) + "/signin/email#signup");
  return from_templates(templates, "email_signin_signup", data, from, to, public_url, now);
}

MailMessage notice_mail(std::string_view from, const NoticeFacts& facts,
                        std::string_view public_url, Millis now, const MailTemplates& templates) {
  kainjow::mustache::data data = common_data(facts.to, public_url);
  // Absent rather than empty: {{#display_name}} then renders nothing.
  if (facts.display_name && !facts.display_name->empty())
    data.set("display_name", *facts.display_name);
  data.set("time", utc_time(facts.changed_at));
  data.set("by_self", facts.notice.actor == NoticeActor::self);
  data.set("by_reset", facts.notice.actor == NoticeActor::reset);
  data.set("by_operator", facts.notice.actor == NoticeActor::admin);
  return from_templates(templates, notice_mail_name(facts.notice.topic), data, from, facts.to,
                        public_url, now);
}

}  // namespace authd
