// interface.md 7.5 (the operator CLI) and 3.3 (new-password rules), through
// the real binary: `authd user ...` on the database a running server uses.
#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

std::vector<std::string> with_fast_hashing(std::vector<std::string> args) {
  std::vector<std::string> hashing = fast_hashing();
  args.insert(args.end(), hashing.begin(), hashing.end());
  return args;
}

int user_add(const AuthdProcess& authd, const std::string& email, const std::string& password,
             std::string* output = nullptr) {
  return authd.cli(with_fast_hashing({"user", "add", "--email", email}), password, output);
}

int set_password(const AuthdProcess& authd, const std::string& email, const std::string& password,
                 std::string* output = nullptr) {
  return authd.cli(with_fast_hashing({"user", "set-password", "--email", email}), password, output);
}

// interface.md 7.5: create a user with every profile field; `show` prints
// it; the server serves the same record.
TEST(Cli, Interface_7_5_UserAddWithProfileAndShow) {
  AuthdProcess authd(fast_hashing());
  nlohmann::json added =
      cli_json(authd,
               with_fast_hashing({"user", "add", "--email", "Alice@Example.com", "--display-name",
                                  "Alice Liddell", "--phone", "+15551234567", "--photo-url",
                                  "https://example.com/alice.png"}),
               kPassword + "\n");
  EXPECT_EQ(added["email"], kEmail);
  EXPECT_EQ(added["displayName"], "Alice Liddell");
  EXPECT_EQ(added["phone"], "+15551234567");
  EXPECT_EQ(added["photoUrl"], "https://example.com/alice.png");
  EXPECT_TRUE(added["password"].is_null());
  EXPECT_TRUE(added["emailVerifiedAt"].is_null());
  EXPECT_TRUE(added["phoneVerifiedAt"].is_null());
  EXPECT_EQ(added["disabled"], false);

  nlohmann::json shown = show_user(authd, "ALICE@example.com");
  EXPECT_EQ(shown, added);
  // The trailing line break of piped input is not part of the password.
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  nlohmann::json served = login.json();
  for (auto& [field, value] : served.items()) EXPECT_EQ(shown[field], value) << field;

  // No hash in the operator's output either.
  std::string output;
  ASSERT_EQ(authd.cli({"user", "show", "--email", kEmail}, "", &output), 0);
  EXPECT_EQ(output.find("argon2"), std::string::npos) << output;
}

// interface.md 7.5: errors are reported with a non-zero exit code: an
// existing e-mail, an unknown account, invalid profile fields.
TEST(Cli, Interface_7_5_ErrorsExitNonZero) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  EXPECT_NE(user_add(authd, "ALICE@example.com", kPassword), 0);
  EXPECT_NE(authd.cli({"user", "show", "--email", "nobody@example.com"}), 0);
  EXPECT_NE(authd.cli({"user", "disable", "--email", "nobody@example.com"}), 0);
  EXPECT_NE(user_add(authd, "not an e-mail", kPassword), 0);
  EXPECT_NE(authd.cli(with_fast_hashing(
                          {"user", "add", "--email", "bob@example.com", "--phone", "555-1234"}),
                      kPassword),
            0);
  EXPECT_NE(authd.cli(with_fast_hashing({"user", "add", "--email", "bob@example.com", "--photo-url",
                                         "javascript:alert(1)"}),
                      kPassword),
            0);
  EXPECT_EQ(lines(authd.sql("select email from users")), std::vector<std::string>{kEmail});
}

// interface.md 7.5: the password is read from stdin or a prompt, never from
// argv: there is no option for it.
TEST(Cli, Interface_7_5_PasswordNeverAcceptedFromArgv) {
  AuthdProcess authd(fast_hashing());
  std::string output;
  int code = authd.cli(with_fast_hashing({"user", "add", "--email", kEmail, "--password",
                                          "correct horse battery staple"}),
                       "", &output);
  EXPECT_NE(code, 0) << output;
  EXPECT_NE(authd.cli({"user", "show", "--email", kEmail}), 0);
  code = authd.cli(with_fast_hashing({"user", "add", "--email", kEmail, "--password=x12345678"}),
                   kPassword, &output);
  EXPECT_NE(code, 0) << output;
  EXPECT_EQ(lines(authd.sql("select count(*) from users")), std::vector<std::string>{"0"});
  // An empty stdin is no password at all.
  EXPECT_NE(user_add(authd, kEmail, ""), 0);
  EXPECT_EQ(lines(authd.sql("select count(*) from users")), std::vector<std::string>{"0"});
}

// interface.md 3.3: a new password (operator) is 8 to 255 code points and
// not the account's e-mail.
TEST(Cli, Interface_3_3_NewPasswordRules) {
  AuthdProcess authd(fast_hashing());
  EXPECT_NE(user_add(authd, kEmail, "1234567"), 0);
  EXPECT_NE(user_add(authd, kEmail, emoji(7)), 0);  // 28 bytes, 7 code points
  EXPECT_NE(user_add(authd, kEmail, kEmail), 0);
  EXPECT_NE(user_add(authd, kEmail, "Alice@Example.COM"), 0);
  EXPECT_NE(user_add(authd, kEmail, std::string(256, 'x')), 0);
  EXPECT_NE(user_add(authd, kEmail, emoji(256)), 0);
  EXPECT_NE(user_add(authd, kEmail, "\xFF\xFE invalid UTF-8 \xC3"), 0);
  EXPECT_EQ(lines(authd.sql("select count(*) from users")), std::vector<std::string>{"0"});

  ASSERT_EQ(user_add(authd, kEmail, emoji(8)), 0);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, emoji(8))).status, 200);

  EXPECT_NE(set_password(authd, kEmail, "short"), 0);
  EXPECT_NE(set_password(authd, kEmail, emoji(7)), 0);
  EXPECT_NE(set_password(authd, kEmail, kEmail), 0);
  EXPECT_NE(set_password(authd, kEmail, "ALICE@EXAMPLE.COM"), 0);
  EXPECT_NE(set_password(authd, kEmail, std::string(256, 'y')), 0);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, emoji(8))).status, 200);

  ASSERT_EQ(set_password(authd, kEmail, std::string(255, 'y')), 0);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, std::string(255, 'y'))).status,
            200);
}

// interface.md 7.5: disable and enable; a disabled account cannot log in.
TEST(Cli, Interface_7_5_DisableAndEnable) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  nlohmann::json disabled = cli_json(authd, {"user", "disable", "--email", kEmail});
  EXPECT_EQ(disabled["disabled"], true);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 403);
  nlohmann::json enabled = cli_json(authd, {"user", "enable", "--email", kEmail});
  EXPECT_EQ(enabled["disabled"], false);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 7.5: set-password, like a reset, revokes every session.
TEST(Cli, Interface_7_5_SetPasswordRevokesEverySession) {
  AuthdProcess authd(fast_hashing());
  auto [first, second] = user_with_two_sessions(authd);
  ASSERT_FALSE(first.empty() || second.empty());
  ASSERT_EQ(set_password(authd, kEmail, "a brand new password"), 0);
  EXPECT_EQ(get_with_token(authd.port(), "/me", first).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", second).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 401);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "a brand new password")).status,
            200);
}

// interface.md 7.5 and 2.6: the operator marks the e-mail or phone verified.
TEST(Cli, Interface_7_5_VerifyEmailAndPhone) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword, {"--phone", "+15551234567"});
  nlohmann::json email = cli_json(authd, {"user", "verify-email", "--email", kEmail});
  ASSERT_TRUE(email["emailVerifiedAt"].is_string()) << email;
  EXPECT_TRUE(matches(email["emailVerifiedAt"].get<std::string>(), timestamp_pattern()));
  EXPECT_TRUE(email["phoneVerifiedAt"].is_null());
  nlohmann::json phone = cli_json(authd, {"user", "verify-phone", "--email", kEmail});
  ASSERT_TRUE(phone["phoneVerifiedAt"].is_string()) << phone;
  EXPECT_EQ(phone["emailVerifiedAt"], email["emailVerifiedAt"]);
  // Verifying again keeps the first time.
  EXPECT_EQ(cli_json(authd, {"user", "verify-email", "--email", kEmail})["emailVerifiedAt"],
            email["emailVerifiedAt"]);
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  EXPECT_EQ(login.json()["emailVerifiedAt"], email["emailVerifiedAt"]);
  EXPECT_EQ(login.json()["phoneVerifiedAt"], phone["phoneVerifiedAt"]);
}

}  // namespace
}  // namespace authd::test
