// interface.md 11.5: whoever opens a sign-up mail cannot complete somebody
// else's sign-up of the address (account pre-hijacking). POST /verify needs
// the password chosen at the sign-up, counted as a login of the address; a
// sign-up over the address's mail limit renews the pending one instead of
// being dropped; each sign-up mail says when and from which client address
// it was asked for. Real HTTP, real mail files, on both databases.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"
#include "signup_support.hpp"

namespace authd::test {
namespace {

const std::string kVictimPassword = "the victim's own passphrase";
const std::string kAttackerPassword = "the attacker's passphrase";

// interface.md 11.5: the token alone is not enough. A missing password is
// 400; a wrong one is 401 and leaves the token usable; the chosen one
// creates the account.
TEST(SignupPrehijack, Interface_11_5_VerifyNeedsThePasswordChosenAtTheSignup) {
  AuthdProcess authd(signup_args());
  std::string token = mailed_signup_token(authd, kNewcomer);
  ASSERT_FALSE(token.empty());
  HttpResponse bare = post_json(authd.port(), "/verify", nlohmann::json{{"token", token}}.dump());
  EXPECT_EQ(bare.status, 400) << bare.body;
  // A login's password rule (3.2): nothing is hashed or counted for these.
  for (const std::string& impossible : {std::string(), std::string(256, 'p')})
    EXPECT_EQ(verify(authd.port(), token, impossible).status, 400) << impossible.size();
  EXPECT_EQ(rows(authd, "select count(*) from throttle_events where key like 'login:%'"),
            std::vector<std::string>{"0"});
  HttpResponse wrong = verify(authd.port(), token, "not the chosen passphrase");
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.body, unauthorized_body());
  EXPECT_TRUE(wrong.header("Authorization").empty());
  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"0"});
  EXPECT_EQ(rows(authd, "select count(*) from signups"), std::vector<std::string>{"1"});
  HttpResponse right = verify(authd.port(), token);
  ASSERT_EQ(right.status, 201) << right.body;
  EXPECT_FALSE(authd.login(kNewcomer, kChosenPassword).empty());
}

// interface.md 11.5 (6 /login 4): a wrong password at /verify is a failed
// login of the address: past the address's limit, 429 with Retry-After,
// even for the right password; a right one before that clears the count.
TEST(SignupPrehijack, Interface_11_5_WrongVerifyPasswordsCountAsFailedLoginsOfTheAddress) {
  AuthdProcess authd(signup_args({"--login-email-limit", "3/15m"}));
  std::string token = mailed_signup_token(authd, kNewcomer);
  ASSERT_FALSE(token.empty());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(verify(authd.port(), token, "a wrong guess").status, 401);
  HttpResponse blocked = verify(authd.port(), token);
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  expect_retry_after(blocked, 900);
  EXPECT_EQ(rows(authd, "select count(*) from throttle_events where key like 'login:email:%'"),
            std::vector<std::string>{"3"});
  EXPECT_EQ(rows(authd, "select count(*) from users"), std::vector<std::string>{"0"});
  // The same address at POST /login: one count for both.
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kNewcomer, kChosenPassword)).status, 429);
}

// interface.md 11.5: the attack from the review, from outside. The attacker
// signs up the victim's address with his own password; the victim signs up
// within a minute (over the address's mail limit: nothing more is mailed)
// and opens the only mail she has, his. Her password completes the sign-up
// and his does not: the account is hers, and he cannot sign in to it.
TEST(SignupPrehijack, Interface_11_5_AnAttackersSignupCannotBeCompletedByTheVictim) {
  AuthdProcess authd(signup_args());
  std::string token = mailed_signup_token(authd, kNewcomer, kAttackerPassword);
  ASSERT_FALSE(token.empty());
  wait_for_outbox(authd);
  ASSERT_EQ(signup(authd, kNewcomer, kVictimPassword).status, 200);
  wait_for_outbox(authd);
  ASSERT_EQ(authd.mails().size(), 1u) << "the victim's sign-up is over the mail limit";
  // The mail already sent holds no hash any more: the victim's request is
  // kept as a row of its own, no mail.
  EXPECT_EQ(rows(authd, "select kind from outbox where password_hash is not null"),
            std::vector<std::string>{"signup_request"});

  EXPECT_EQ(verify(authd.port(), token, kAttackerPassword).status, 401);
  HttpResponse hers = verify(authd.port(), token, kVictimPassword);
  ASSERT_EQ(hers.status, 201) << hers.body;
  EXPECT_FALSE(authd.login(kNewcomer, kVictimPassword).empty());
  HttpResponse his = post_json(authd.port(), "/login", login_body(kNewcomer, kAttackerPassword));
  EXPECT_EQ(his.status, 401) << his.body;
}

// interface.md 11.5: a sign-up over the mail limit renews a mail that is
// still queued too: the mail, once sent, completes the newest sign-up, and
// says when and from where that one was asked for.
TEST(SignupPrehijack, Interface_11_5_AQueuedMailCompletesTheSignupPastTheMailLimit) {
  AuthdProcess authd(signup_args({"--reset-mail-delay", "1h"}));
  ASSERT_EQ(signup(authd, kNewcomer, kAttackerPassword, "Mallory").status, 200);
  ASSERT_EQ(signup(authd, kNewcomer, kVictimPassword, "Alice").status, 200);
  EXPECT_EQ(rows(authd, "select kind, display_name from outbox order by id"),
            (std::vector<std::string>{"signup|Mallory", "signup_request|Alice"}));
  authd.sql("update outbox set next_attempt_at = 0 where kind = 'signup'");  // due now
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  std::string token = verify_token_in(mails[0]);
  EXPECT_EQ(verify(authd.port(), token, kAttackerPassword).status, 401);
  HttpResponse created = verify(authd.port(), token, kVictimPassword);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["displayName"], "Alice");
}

// interface.md 11.5: within the mail limits too, the newest sign-up is the
// one a link completes, whatever order the mails go out in: an older mail
// delivered after a newer one (a retry, a relay outage, a long delay) does
// not bring back the older password.
TEST(SignupPrehijack, Interface_11_5_TheNewestSignupWinsWhateverOrderTheMailsGoOutIn) {
  AuthdProcess authd(
      signup_args({"--signup-mail-limit-short", "100/1m", "--reset-mail-delay", "1h"}));
  ASSERT_EQ(signup(authd, kNewcomer, kAttackerPassword).status, 200);
  ASSERT_EQ(signup(authd, kNewcomer, kVictimPassword).status, 200);
  ASSERT_EQ(rows(authd, "select count(*) from outbox"), std::vector<std::string>{"2"});
  // The newer mail first, then the older one.
  authd.sql("update outbox set next_attempt_at = 0 where id = (select max(id) from outbox)");
  ASSERT_EQ(authd.wait_for_mails(1).size(), 1u);
  authd.sql("update outbox set next_attempt_at = 0");
  std::vector<std::string> mails = authd.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u);
  std::string last = verify_token_in(mails[1]);  // the only live link: the last one minted
  EXPECT_EQ(verify(authd.port(), last, kAttackerPassword).status, 401);
  EXPECT_EQ(verify(authd.port(), last, kVictimPassword).status, 201);
}

// interface.md 11.5: each sign-up mail, with a link or saying that the
// address has an account, names the time and the client address of the
// request (interface.md 13.1: here the loopback peer).
TEST(SignupPrehijack, Interface_11_5_EachSignupMailSaysWhenAndFromWhichClientAddress) {
  AuthdProcess authd(signup_args());
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(signup(authd, kNewcomer).status, 200);
  ASSERT_EQ(signup(authd, kEmail).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u);
  for (const std::string& mail : mails) {
    EXPECT_NE(mail.find("from the address 127.0.0.1"), std::string::npos) << mail;
    EXPECT_NE(mail.find(" UTC"), std::string::npos) << mail;
  }
}

}  // namespace
}  // namespace authd::test
