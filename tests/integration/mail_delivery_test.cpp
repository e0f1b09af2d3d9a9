// The outbox under a slow or failing relay
// (docs/design/decisions/mail-reset-signup.md#forgot-and-mail;
// mail/outbox_worker.hpp): deliveries run several at once, bounded by
// --mail-concurrency, and a relay that comes back after an outage is noticed
// within seconds, not one backoff interval later. The relay is
// tests/support/smtp_sink.py, with a delay per message or a number of first
// deliveries answered 451.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

std::vector<std::string> delivering_to(const SmtpSink& sink, const std::string& concurrency) {
  std::vector<std::string> args = fast_hashing();
  std::vector<std::string> smtp = sink.authd_args();
  args.insert(args.end(), smtp.begin(), smtp.end());
  args.insert(args.end(), {"--reset-mail-delay", "1ms", "--mail-concurrency", concurrency,
                           "--forgot-client-limit", "1000000/1m"});
  return args;
}

std::vector<std::string> users_asking_for_mail(const AuthdProcess& authd, int count) {
  std::vector<std::string> emails;
  for (int i = 0; i < count; ++i) {
    emails.push_back("user" + std::to_string(i) + "@example.com");
    authd.add_user(emails.back(), kPassword);
  }
  for (const std::string& email : emails)
    EXPECT_EQ(post_json(authd.port(), "/forgot", forgot_body(email)).status, 200);
  return emails;
}

// Waits, bounded at `most`, until the sink holds `count` mails.
bool mails_arrive(const SmtpSink& sink, std::size_t count, std::chrono::seconds most) {
  auto deadline = std::chrono::steady_clock::now() + most;
  while (sink.mails().size() < count && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return sink.mails().size() >= count;
}

// A relay that takes 300 ms a message gets several at once from authd,
// never more than --mail-concurrency, and each exactly once.
TEST(MailDelivery, DeliveriesRunSeveralAtOnceUpToTheConfiguredConcurrency) {
  SmtpSink sink({.delay_ms = 300});
  AuthdProcess authd(delivering_to(sink, "3"));
  users_asking_for_mail(authd, 9);
  ASSERT_TRUE(mails_arrive(sink, 9, std::chrono::seconds(30))) << authd.log_text();
  EXPECT_GE(sink.max_concurrent(), 2) << "one message at a time";
  EXPECT_LE(sink.max_concurrent(), 3) << "more at once than --mail-concurrency";
  EXPECT_TRUE(eventually([&] {
    return without_trailing_newlines(
               authd.sql("select count(*) from outbox where sent_at is null")) == "0";
  }));
  EXPECT_EQ(sink.mails().size(), 9u) << "a mail was sent twice";
}

// An outage of the relay: 15 deliveries answered 451 before it takes mail
// again. Backing off alone (2, 4, 8, 16, 32 s between a mail's attempts),
// the three mails would arrive about a minute after the outage; with one
// retry of the earliest mail every 2 s while the relay is down, and the
// others sent as soon as one goes through, they arrive within seconds of
// its end.
TEST(MailDelivery, ARelayThatComesBackIsNoticedWithinSeconds) {
  SmtpSink sink({.fail_first = 15});
  AuthdProcess authd(delivering_to(sink, "4"));
  users_asking_for_mail(authd, 3);
  ASSERT_TRUE(mails_arrive(sink, 3, std::chrono::seconds(40))) << authd.log_text();
  EXPECT_EQ(sink.mails().size(), 3u);
  bool noticed = false;
  for (const auto& line : log_lines(authd)) noticed |= line.value("event", "") == "mail_relay_back";
  EXPECT_TRUE(noticed);
}

}  // namespace
}  // namespace authd::test
