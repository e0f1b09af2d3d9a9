// Sign-in by mail (interface.md 19) under attack: what a security review of
// the feature tried and found, each test after the clause it proves. Real
// HTTP, real mail files (the log transport).
#include <gtest/gtest.h>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"

// Inside a namespace of its own, not with a using-directive: the unity build
// puts several test files in one translation unit.
namespace authd::test::email_signin_attacks {
namespace {

using admin::call;
using admin::create_key;
using admin::create_user;

std::vector<std::string> with_email_signin(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--email-signin", "on"});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

HttpResponse ask_for_mail(const AuthdProcess& authd, const std::string& email) {
  return post_json(authd.port(), "/signin/email", nlohmann::json{{"email", email}}.dump());
}

// interface.md 10.4.11 (and 19.1, 19.2): a new address drops the mails
// queued for the account's old one, a request for a sign-in mail included,
// so that the old address stays nowhere in the database and its mailbox
// gets nothing the request asked for once the account has moved.
TEST(EmailSigninAttacks, Interface_10_4_11_ANewAddressDropsTheSignInMailQueuedForTheOld) {
  AuthdProcess authd(with_email_signin({"--reset-mail-delay", "1h"}));
  const std::string key = create_key(authd, "ops", "write");
  nlohmann::json alice = create_user(authd, key, {{"email", kEmail}, {"password", kPassword}});
  ASSERT_TRUE(alice.is_object());
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  ASSERT_EQ(ask_for_mail(authd, kEmail).status, 200);
  ASSERT_EQ(
      lines(authd.sql("select kind from outbox where email = '" + kEmail + "' order by kind")),
      (std::vector<std::string>{"email_signin", "password_reset"}));

  HttpResponse moved = call(authd, key, "PATCH", "/admin/users/" + alice["id"].get<std::string>(),
                            nlohmann::json{{"email", "alice.new@example.com"}});
  ASSERT_EQ(moved.status, 200) << moved.body;
  // The notice of the change goes to the old address (14.3); nothing else.
  EXPECT_EQ(lines(authd.sql("select count(*) from outbox where email = '" + kEmail +
                            "' and kind in ('password_reset', 'email_signin')")),
            std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace authd::test::email_signin_attacks
