// interface.md 8.2 ("each mail is sent once") and 6 /forgot 4, at the one
// moment where that is hardest: the relay has accepted the mail and the
// database is briefly unavailable when the worker marks it sent. Real SMTP
// (tests/support/smtp_sink.py), on both backends; the database is made
// unavailable by another client holding a lock on it (HeldLock), not by
// stopping a server other tests share.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// The relay stores the mail, then takes 2 s to say so: meanwhile the test
// locks the outbox, so that the worker's mark fails (after a 1 s lock wait
// on PostgreSQL, SQLite's 5 s busy time-out), then lets it go. Without the
// retry of the mark, the mail would stay unsent in the outbox, be claimed
// again when its 8 s lease ran out, and reach the relay a second time with
// a new token.
TEST(MailOnce, Interface_8_2_AMailTheRelayAcceptedIsNotSentAgainWhenMarkingItSentFails) {
  SmtpSink sink({.hold_reply_seconds = 2});
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms", "--mail-transport", "smtp", "--smtp-url",
                           sink.url(), "--smtp-starttls", "off", "--smtp-timeout", "6s",
                           "--mail-claim-lease", "8s", "--database-timeout", "1s"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);

  ASSERT_EQ(sink.wait_for_mails(1).size(), 1u) << authd.log_text();  // the relay has it
  {
    HeldLock lock(authd,
                  on_postgres() ? "BEGIN; SELECT id FROM outbox FOR UPDATE" : "BEGIN IMMEDIATE");
    // The relay's answer comes, and the mark fails against the lock. (Not
    // any store_busy line: the other delivery threads' claims fail against
    // the lock too.)
    ASSERT_TRUE(eventually([&] {
      std::string log = authd.log_text();
      return log.find("\"mail_sent\"") != std::string::npos &&
             log.find("\"mail_mark_failed\"") != std::string::npos;
    })) << authd.log_text();
  }  // the database is back

  ASSERT_TRUE(eventually([&] {
    return lines(authd.sql("select count(*) from outbox where sent_at is not null")) ==
           std::vector<std::string>{"1"};
  })) << authd.log_text();
  // Marked sent, so it can never be claimed again: one mail, whose link is
  // the one live token.
  std::vector<std::string> mails = sink.mails();
  ASSERT_EQ(mails.size(), 1u) << authd.log_text();
  EXPECT_EQ(lines(authd.sql("select hex(token_digest) from reset_tokens")),
            std::vector<std::string>{sha256_hex(reset_token_in(mails[0]))});
}

}  // namespace
}  // namespace authd::test
