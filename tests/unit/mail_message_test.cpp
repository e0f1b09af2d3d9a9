// mail/message: the reset mail of interface.md 6 /forgot 3 (a link to
// {public_url}/reset#token=<token>) and the two sign-up mails of 11.4,
// rendered as RFC 5322 text.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "mail/message.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr Millis kAt = 1'795'253'400'123;  // Sat, 21 Nov 2026 09:30:00.123 UTC
const std::string kToken = "rst_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCd";

std::string header_value(const std::string& text, const std::string& name) {
  auto head_end = text.find("\r\n\r\n");
  std::string head = text.substr(0, head_end + 2);
  std::string key = name + ": ";
  std::size_t pos = 0;
  while (pos < head.size()) {
    auto eol = head.find("\r\n", pos);
    std::string line = head.substr(pos, eol - pos);
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
    pos = eol + 2;
  }
  return "<absent>";
}

// interface.md 6 /forgot 3: the link sits in the fragment, under {public_url}/reset.
TEST(MailMessage, ResetLinkPutsTheTokenInTheFragment) {
  EXPECT_EQ(reset_link("https://auth.example.com", "t0k"),
            "https://auth.example.com/reset#token=t0k");
  EXPECT_EQ(reset_link("https://auth.example.com/", "t0k"),
            "https://auth.example.com/reset#token=t0k");
  EXPECT_EQ(reset_link("https://example.com/auth/", "t0k"),
            "https://example.com/auth/reset#token=t0k");
  EXPECT_EQ(reset_link("http://127.0.0.1:8080", "t0k"), "http://127.0.0.1:8080/reset#token=t0k");
}

// RFC 5322: Date, From, To, Subject and Message-ID headers, CRLF line endings only.
TEST(MailMessage, RendersRfc5322HeadersWithCrlf) {
  MailMessage m = password_reset_mail("authd <no-reply@example.com>", "alice@example.com",
                                      "https://auth.example.com/", kToken, 30min, kAt);
  std::string text = render_rfc5322(m);

  EXPECT_EQ(header_value(text, "Date"), "Sat, 21 Nov 2026 09:30:00 +0000");
  EXPECT_EQ(header_value(text, "From"), "authd <no-reply@example.com>");
  EXPECT_EQ(header_value(text, "To"), "alice@example.com");
  EXPECT_EQ(header_value(text, "Subject"), "Reset your password");
  EXPECT_TRUE(std::regex_match(header_value(text, "Message-ID"),
                               std::regex(R"(^<[0-9a-f-]{36}@auth\.example\.com>$)")))
      << header_value(text, "Message-ID");
  EXPECT_NE(header_value(text, "MIME-Version"), "<absent>");
  EXPECT_TRUE(std::regex_match(
      header_value(text, "Content-Type"),
      std::regex(R"(^multipart/alternative; boundary="=_authd_[A-Za-z0-9_-]{43}"$)")))
      << header_value(text, "Content-Type");

  ASSERT_NE(text.find("\r\n\r\n"), std::string::npos);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(text[i - 1], '\r') << "bare LF at " << i;
    }
    if (text[i] == '\r') {
      ASSERT_LT(i + 1, text.size());
      EXPECT_EQ(text[i + 1], '\n') << "bare CR at " << i;
    }
  }
}

// interface.md 6 /forgot 3: the body carries the link (trailing slash of
// public_url handled) and the lifetime.
TEST(MailMessage, ResetMailBodyHasTheLinkAndTheLifetime) {
  MailMessage m = password_reset_mail("authd <no-reply@example.com>", "alice@example.com",
                                      "https://auth.example.com/", kToken, 30min, kAt);
  std::string text = render_rfc5322(m);
  std::string body = text.substr(text.find("\r\n\r\n") + 4);
  EXPECT_NE(body.find("\r\nhttps://auth.example.com/reset#token=" + kToken + "\r\n"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("//reset"), std::string::npos) << body;
  EXPECT_NE(body.find("30 minutes"), std::string::npos) << body;
  // The token appears only in the link, never in a header.
  EXPECT_EQ(text.substr(0, text.find("\r\n\r\n")).find(kToken), std::string::npos);
}

// The text part comes first, then an HTML part with the same link (escaped)
// and the same facts; the parts are delimited by the declared boundary.
TEST(MailMessage, ResetMailHasPlainTextThenHtmlAlternative) {
  MailMessage m = password_reset_mail("authd <no-reply@example.com>", "o'brien&co@example.com",
                                      "https://auth.example.com/", kToken, 30min, kAt);
  std::string text = render_rfc5322(m);
  std::smatch match;
  std::string content_type = header_value(text, "Content-Type");
  ASSERT_TRUE(std::regex_search(content_type, match, std::regex(R"re(boundary="([^"]+)")re")));
  std::string delimiter = "\r\n--" + match[1].str();
  auto text_part = text.find(delimiter + "\r\nContent-Type: text/plain; charset=utf-8\r\n");
  auto html_part = text.find(delimiter + "\r\nContent-Type: text/html; charset=utf-8\r\n");
  auto close = text.find(delimiter + "--\r\n");
  ASSERT_NE(text_part, std::string::npos) << text;
  ASSERT_NE(html_part, std::string::npos) << text;
  ASSERT_NE(close, std::string::npos) << text;
  EXPECT_LT(text_part, html_part);
  EXPECT_LT(html_part, close);
  std::string html = text.substr(html_part, close - html_part);
  EXPECT_NE(html.find("<a href=\"https://auth.example.com/reset#token=" + kToken + "\">"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("o&#39;brien&amp;co@example.com"), std::string::npos) << html;
  EXPECT_NE(html.find("30 minutes"), std::string::npos) << html;
}

// Every reset mail has its own Message-ID.
TEST(MailMessage, MessageIdsAreUnique) {
  auto a = password_reset_mail("f@x.y", "a@b.c", "https://x.y", "t", 30min, kAt);
  auto b = password_reset_mail("f@x.y", "a@b.c", "https://x.y", "t", 30min, kAt);
  EXPECT_NE(a.message_id, b.message_id);
  EXPECT_EQ(a.date, kAt);
}

// The Message-ID host comes from public_url; ports, paths and odd URLs are handled.
TEST(MailMessage, MessageIdHostComesFromPublicUrl) {
  auto host_of = [](std::string_view url) {
    auto m = password_reset_mail("f@x.y", "a@b.c", url, "t", 30min, kAt);
    return m.message_id.substr(m.message_id.find('@') + 1);
  };
  EXPECT_EQ(host_of("http://127.0.0.1:8080"), "127.0.0.1>");
  EXPECT_EQ(host_of("https://example.com/auth/"), "example.com>");
  EXPECT_EQ(host_of(""), "authd.invalid>");
}

// interface.md 11.4: the sign-up link is {public_url}/verify#token=<token>,
// with the lifetime in words, in both parts.
TEST(MailMessage, Interface_11_4_SignupMailHasTheVerifyLinkAndTheLifetime) {
  MailMessage m = signup_mail("authd <no-reply@example.com>", "new@example.com",
                              "https://example.com/auth/", kToken, 24h, kAt, {});
  EXPECT_EQ(verify_link("https://example.com/auth/", "t0k"),
            "https://example.com/auth/verify#token=t0k");
  std::string link = "https://example.com/auth/verify#token=" + kToken;
  EXPECT_NE(m.text_body.find("\n" + link + "\n"), std::string::npos) << m.text_body;
  EXPECT_NE(m.html_body.find("href=\"" + link + "\""), std::string::npos) << m.html_body;
  EXPECT_NE(m.text_body.find("within 24 hours"), std::string::npos) << m.text_body;
  EXPECT_NE(m.text_body.find("no account will be created"), std::string::npos);
  EXPECT_EQ(m.to, "new@example.com");
  EXPECT_NE(signup_mail("f@x.y", "a@b.c", "https://x.y", "t", 90min, kAt, {})
                .text_body.find("90 minutes"),
            std::string::npos);
  EXPECT_NE(
      signup_mail("f@x.y", "a@b.c", "https://x.y", "t", 1h, kAt, {}).text_body.find("1 hour:"),
      std::string::npos);
}

// interface.md 11.4: for an address with an account, the mail says so,
// carries no token, and says how to reset the password.
TEST(MailMessage, Interface_11_4_AccountExistsMailHasNoTokenAndSaysHowToReset) {
  MailMessage m = account_exists_mail("authd <no-reply@example.com>", "o'brien@example.com",
                                      "https://auth.example.com/", kAt, {});
  std::string text = render_rfc5322(m);
  EXPECT_EQ(text.find("#token="), std::string::npos);
  EXPECT_EQ(text.find("/verify"), std::string::npos);
  EXPECT_NE(m.text_body.find("already has one"), std::string::npos) << m.text_body;
  EXPECT_NE(m.text_body.find("https://auth.example.com/forgot"), std::string::npos) << m.text_body;
  EXPECT_NE(m.html_body.find("o&#39;brien@example.com"), std::string::npos) << m.html_body;
  EXPECT_EQ(header_value(text, "Subject"), "You already have an account");
}

// interface.md 11.5: each sign-up mail, with a link or without, says when
// and from which client address it was asked for, so that the owner can
// tell a request of their own from somebody else's.
TEST(MailMessage, Interface_11_5_SignupMailsSayWhenAndFromWhichAddress) {
  const MailRequester requester{kAt, "2001:db8::7"};
  for (const MailMessage& m :
       {signup_mail("f@x.y", "a@b.c", "https://x.y", kToken, 24h, kAt, requester),
        account_exists_mail("f@x.y", "a@b.c", "https://x.y", kAt, requester)}) {
    for (const std::string& body : {m.text_body, m.html_body}) {
      EXPECT_NE(body.find("on 2026-11-21 09:30 UTC"), std::string::npos) << body;
      EXPECT_NE(body.find("from the address 2001:db8::7"), std::string::npos) << body;
    }
  }
  // A mail queued without the address (before it was recorded) says the time alone.
  MailMessage bare = signup_mail("f@x.y", "a@b.c", "https://x.y", kToken, 24h, kAt, {kAt, ""});
  EXPECT_EQ(bare.text_body.find("from the address"), std::string::npos) << bare.text_body;
}

}  // namespace
}  // namespace authd
