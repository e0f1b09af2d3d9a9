// mail/smtp_transport: which relays count as "this machine" for STARTTLS
// `auto` and for the rule that credentials never travel in clear.
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

}  // namespace
}  // namespace authd
