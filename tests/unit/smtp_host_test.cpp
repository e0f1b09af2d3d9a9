// mail/smtp_transport: which relays count as "this machine" for STARTTLS
// `auto` and for the rule that credentials never travel in clear; which
// delivery failures are permanent.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include "mail/transport.hpp"

namespace authd {
namespace {

TEST(SmtpHost, NumericLoopbackAddressesAndLocalhostAreLoopback) {
  for (const char* url :
       {"smtp://127.0.0.1:25", "smtp://127.8.9.10", "smtp://[::1]:587", "smtps://localhost:465",
        "smtp://LocalHost", "smtp://user:pa@ss@127.0.0.1:25", "smtp://127.0.0.1/helo.example"})
    EXPECT_TRUE(is_loopback_smtp_host(url)) << url;
}

TEST(SmtpHost, NamesThatLookLikeLoopbackAreNot) {
  for (const char* url :
       {"smtp://127.mail.example:25", "smtp://localhost.example.com", "smtp://mail.example.com",
        "smtp://128.0.0.1", "smtp://[::2]:25", "smtp://127.0.0.1@mail.example.com", "smtp://[::1",
        "smtp://10.0.0.1:25/127.0.0.1"})
    EXPECT_FALSE(is_loopback_smtp_host(url)) << url;
}

// libcurl's own words for each SMTP step (lib/smtp.c); only a 5xx to
// RCPT TO refuses one mail for good.
TEST(SmtpFailure, OnlyA5xxToRcptToIsPermanent) {
  EXPECT_TRUE(smtp_recipient_refused_for_good(CURLE_SEND_ERROR, 550, "RCPT failed: 550"));
  EXPECT_TRUE(smtp_recipient_refused_for_good(CURLE_SEND_ERROR, 553, "RCPT failed: 553"));
  EXPECT_FALSE(smtp_recipient_refused_for_good(CURLE_SEND_ERROR, 450, "RCPT failed: 450"));
  EXPECT_FALSE(smtp_recipient_refused_for_good(CURLE_SEND_ERROR, 550, "MAIL failed: 550"));
  EXPECT_FALSE(smtp_recipient_refused_for_good(CURLE_WEIRD_SERVER_REPLY, 554, ""));
  EXPECT_FALSE(smtp_recipient_refused_for_good(CURLE_LOGIN_DENIED, 535, "Login denied"));
  EXPECT_FALSE(smtp_recipient_refused_for_good(CURLE_OPERATION_TIMEDOUT, 0, "timed out"));
  EXPECT_FALSE(smtp_recipient_refused_for_good(CURLE_COULDNT_CONNECT, 0, "Connection refused"));
}

}  // namespace
}  // namespace authd
