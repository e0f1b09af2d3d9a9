// Notification mails (interface.md 14.3): a password changed (by a reset,
// by the user, by an operator), an e-mail address changed (to the old
// address), a second factor added or removed; each queued in the
// transaction of the change, delivered by the outbox worker in a plain and
// an HTML part, turned off by --notify, rendered from templates an operator
// may replace (--mail-templates). Mail goes through the log transport: each
// message is a .eml file in the server's mail folder.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "admin_support.hpp"
#include "contract_support.hpp"
#include "harness.hpp"
#include "mfa_support.hpp"
#include "run_authd.hpp"

namespace authd::test {
namespace {

const std::string kPasswordChanged = "Your password was changed";
const std::string kEmailChanged = "The e-mail address of your account was changed";
const std::string kMfaEnabled = "A second factor was added to your account";
const std::string kMfaDisabled = "The second factor of your account was removed";

std::string header_of(const std::string& mail, const std::string& name) {
  std::smatch found;
  std::regex header("(^|\r\n)" + name + ": ([^\r\n]*)\r\n");
  if (!std::regex_search(mail, found, header)) return "";
  return found[2];
}

// The body of the part of `mail` with this content type ("text/plain").
std::string part_of(const std::string& mail, const std::string& type) {
  std::size_t start = mail.find("Content-Type: " + type + "; charset=utf-8\r\n");
  if (start == std::string::npos) return "";
  start = mail.find("\r\n\r\n", start);
  std::size_t end = mail.find("\r\n--=_authd_", start);
  return mail.substr(start + 4, end == std::string::npos ? end : end - start - 4);
}

// The mails delivered so far with this subject.
std::vector<std::string> mails_with_subject(const AuthdProcess& authd, const std::string& subject) {
  std::vector<std::string> found;
  for (const std::string& mail : authd.mails())
    if (header_of(mail, "Subject") == subject) found.push_back(mail);
  return found;
}

// Polls until `count` mails with this subject arrived; returns them.
std::vector<std::string> wait_for_subject(const AuthdProcess& authd, const std::string& subject,
                                          std::size_t count = 1) {
  EXPECT_TRUE(eventually([&] { return mails_with_subject(authd, subject).size() >= count; }))
      << "no '" << subject << "' mail; log:\n"
      << authd.log_text();
  return mails_with_subject(authd, subject);
}

// Notifications queued (sent or not): written in the change's transaction,
// so counted as soon as the change answered.
int queued_notices(const AuthdProcess& authd) {
  return std::stoi(without_trailing_newlines(
      authd.sql("select count(*) from outbox where kind like 'notice%'")));
}

// A notice has both parts and goes to `to`; no secret of the test is in it.
void expect_notice(const std::string& mail, const std::string& to,
                   const std::vector<std::string>& secrets) {
  EXPECT_EQ(header_of(mail, "To"), to);
  EXPECT_NE(header_of(mail, "Content-Type").find("multipart/alternative"), std::string::npos);
  EXPECT_FALSE(part_of(mail, "text/plain").empty()) << mail;
  EXPECT_NE(part_of(mail, "text/html").find("<html>"), std::string::npos) << mail;
  EXPECT_NE(part_of(mail, "text/plain").find(" UTC"), std::string::npos) << mail;
  for (const std::string& secret : secrets) {
    if (!secret.empty()) {
      EXPECT_EQ(mail.find(secret), std::string::npos) << secret << "\n" << mail;
    }
  }
  for (const char* marker : {"#token=", "$argon2", "authdrt_", "authdsu_", "authdak_"})
    EXPECT_EQ(mail.find(marker), std::string::npos) << marker << "\n" << mail;
}

std::vector<std::string> server_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--reset-mail-delay", "1ms"});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A fresh directory for an operator's templates, removed by the caller.
std::string fresh_directory() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "authd-templates-XXXXXX").string();
  EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
  return pattern;
}

std::string user_id(const AuthdProcess& authd, const std::string& email) {
  return show_user(authd, email).value("id", "");
}

// interface.md 14.3.1: POST /password mails the account's address.
TEST(Notifications, Interface_14_3_1_PasswordChangedByTheUserIsMailed) {
  AuthdProcess authd(server_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  nlohmann::json body = {{"currentPassword", kPassword}, {"newPassword", kNewPassword}};
  HttpResponse changed =
      post_json(authd.port(), "/password", body.dump(), {{"Authorization", "Bearer " + token}});
  ASSERT_EQ(changed.status, 200) << changed.body;
  std::vector<std::string> mails = wait_for_subject(authd, kPasswordChanged);
  ASSERT_EQ(mails.size(), 1u);
  expect_notice(mails[0], kEmail, {kPassword, kNewPassword, token});
  EXPECT_NE(part_of(mails[0], "text/plain").find("from a session signed in"), std::string::npos)
      << mails[0];
}

// interface.md 14.3.1: a reset mails a notice too, without the reset token.
TEST(Notifications, Interface_14_3_1_PasswordResetIsMailed) {
  AuthdProcess authd(server_args());
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  std::string reset_mail = wait_for_subject(authd, "Reset your password").at(0);
  std::string reset_token = reset_token_in(reset_mail);
  ASSERT_FALSE(reset_token.empty()) << reset_mail;
  ASSERT_EQ(post_json(authd.port(), "/reset", reset_body(reset_token, kNewPassword)).status, 200);
  std::vector<std::string> mails = wait_for_subject(authd, kPasswordChanged);
  ASSERT_EQ(mails.size(), 1u);
  expect_notice(mails[0], kEmail, {kPassword, kNewPassword, reset_token});
  EXPECT_NE(part_of(mails[0], "text/plain").find("password-reset link"), std::string::npos);
}

// interface.md 14.3.1: an operator's new password, by the admin API and by
// the CLI, is mailed, saying that an administrator set it.
TEST(Notifications, Interface_14_3_1_OperatorPasswordChangesAreMailed) {
  AuthdProcess authd(server_args());
  authd.add_user(kEmail, kPassword);
  std::string key = admin::create_key(authd, "ops");
  HttpResponse put =
      admin::call(authd, key, "PUT", "/admin/users/" + user_id(authd, kEmail) + "/password",
                  nlohmann::json{{"password", kNewPassword}});
  ASSERT_EQ(put.status, 200) << put.body;
  std::string out;
  std::vector<std::string> set = {"user", "set-password", "--email", kEmail};
  std::vector<std::string> hashing = fast_hashing();
  set.insert(set.end(), hashing.begin(), hashing.end());
  ASSERT_EQ(authd.cli(set, "yet another passphrase", &out), 0) << out;
  std::vector<std::string> mails = wait_for_subject(authd, kPasswordChanged, 2);
  ASSERT_EQ(mails.size(), 2u);
  for (const std::string& mail : mails) {
    expect_notice(mail, kEmail, {kPassword, kNewPassword, "yet another passphrase", key});
    EXPECT_NE(part_of(mail, "text/plain").find("by an administrator"), std::string::npos) << mail;
  }
}

// interface.md 14.3.1: a new address is told to the old one, and only there.
TEST(Notifications, Interface_14_3_1_EmailChangeIsMailedToTheOldAddress) {
  AuthdProcess authd(server_args());
  authd.add_user(kEmail, kPassword);
  std::string key = admin::create_key(authd, "ops");
  HttpResponse patched = admin::call(authd, key, "PATCH", "/admin/users/" + user_id(authd, kEmail),
                                     nlohmann::json{{"email", "alice.new@example.com"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  std::vector<std::string> mails = wait_for_subject(authd, kEmailChanged);
  ASSERT_EQ(mails.size(), 1u);
  expect_notice(mails[0], kEmail, {kPassword, key});
  EXPECT_EQ(without_trailing_newlines(
                authd.sql("select count(*) from outbox where email = 'alice.new@example.com'")),
            "0");
}

// interface.md 14.3.1: a second factor confirmed, removed by its owner, and
// removed by an operator (admin API, then CLI) is mailed each time; an
// operator's reset of an account with no confirmed factor is not.
TEST(Notifications, Interface_14_3_1_SecondFactorAddedAndRemovedAreMailed) {
  AuthdProcess authd(server_args());
  Enrolled enrolled = enrolled_account(authd);
  std::vector<std::string> secrets = {kPassword, enrolled.token, enrolled.secret};
  secrets.insert(secrets.end(), enrolled.recovery_codes.begin(), enrolled.recovery_codes.end());
  expect_notice(wait_for_subject(authd, kMfaEnabled).at(0), kEmail, secrets);

  HttpResponse removed = mfa_call(authd, enrolled.token, "/mfa/totp/remove",
                                  {{"code", enrolled.recovery_codes.at(0)}});
  ASSERT_EQ(removed.status, 204) << removed.body;
  std::string by_owner = wait_for_subject(authd, kMfaDisabled).at(0);
  expect_notice(by_owner, kEmail, secrets);
  EXPECT_NE(part_of(by_owner, "text/plain").find("from a session signed in"), std::string::npos);

  // Enrolled again, then removed by an operator.
  nlohmann::json started = begin_enrolment(authd, enrolled.token);
  HttpResponse confirmed = mfa_call(authd, enrolled.token, "/mfa/totp/confirm",
                                    {{"code", code_in_steps(started.value("secret", ""), 1)}});
  ASSERT_EQ(confirmed.status, 200) << confirmed.body;
  std::string key = admin::create_key(authd, "ops");
  HttpResponse reset =
      admin::call(authd, key, "DELETE", "/admin/users/" + user_id(authd, kEmail) + "/mfa");
  ASSERT_EQ(reset.status, 204) << reset.body;
  std::vector<std::string> disabled = wait_for_subject(authd, kMfaDisabled, 2);
  EXPECT_NE(part_of(disabled.at(1), "text/plain").find("by an administrator"), std::string::npos);

  int before = queued_notices(authd);
  std::string out;
  ASSERT_EQ(authd.cli({"user", "mfa-reset", "--email", kEmail}, "", &out), 0) << out;
  EXPECT_EQ(queued_notices(authd), before) << "no factor was removed";
}

// interface.md 14.3.3: --notify none queues no notice for any change;
// a list turns on only what it names.
TEST(Notifications, Interface_14_3_3_NotifyTurnsEachOff) {
  {
    AuthdProcess authd(server_args({"--notify", "none"}));
    authd.add_user(kEmail, kPassword);
    std::string key = admin::create_key(authd, "ops");
    std::string id = user_id(authd, kEmail);
    ASSERT_EQ(admin::call(authd, key, "PUT", "/admin/users/" + id + "/password",
                          nlohmann::json{{"password", kNewPassword}})
                  .status,
              200);
    ASSERT_EQ(admin::call(authd, key, "PATCH", "/admin/users/" + id,
                          nlohmann::json{{"email", "alice.new@example.com"}})
                  .status,
              200);
    EXPECT_EQ(queued_notices(authd), 0);
  }
  {
    AuthdProcess authd(server_args({"--notify", "email-changed"}));
    authd.add_user(kEmail, kPassword);
    std::string key = admin::create_key(authd, "ops");
    std::string id = user_id(authd, kEmail);
    ASSERT_EQ(admin::call(authd, key, "PUT", "/admin/users/" + id + "/password",
                          nlohmann::json{{"password", kNewPassword}})
                  .status,
              200);
    EXPECT_EQ(queued_notices(authd), 0);
    ASSERT_EQ(admin::call(authd, key, "PATCH", "/admin/users/" + id,
                          nlohmann::json{{"email", "alice.new@example.com"}})
                  .status,
              200);
    EXPECT_EQ(queued_notices(authd), 1);
    wait_for_subject(authd, kEmailChanged);
  }
}

// interface.md 14.3.3: a name --notify does not know stops the start and
// the operator command, exit 2.
TEST(Notifications, Interface_14_3_3_UnknownNotifyNameIsRefused) {
  CommandResult serve = run_authd({"serve", "--notify", "password-changed,login"});
  EXPECT_EQ(serve.exit_code, 2) << serve.output;
  EXPECT_NE(serve.output.find("bad_configuration"), std::string::npos) << serve.output;
  EXPECT_NE(serve.output.find("--notify"), std::string::npos) << serve.output;
  AuthdProcess authd(server_args());
  authd.add_user(kEmail, kPassword);
  std::string out;
  EXPECT_EQ(authd.cli({"user", "set-password", "--email", kEmail, "--notify", "bogus"},
                      kNewPassword, &out),
            2)
      << out;
}

// interface.md 14.3.2: a display name is HTML-escaped in the HTML part.
TEST(Notifications, Interface_14_3_2_DisplayNameIsEscapedInTheHtmlPart) {
  AuthdProcess authd(server_args());
  authd.add_user(kEmail, kPassword, {"--display-name", "<script>alert(1)</script>"});
  std::string key = admin::create_key(authd, "ops");
  ASSERT_EQ(admin::call(authd, key, "PUT", "/admin/users/" + user_id(authd, kEmail) + "/password",
                        nlohmann::json{{"password", kNewPassword}})
                .status,
            200);
  std::string mail = wait_for_subject(authd, kPasswordChanged).at(0);
  std::string html = part_of(mail, "text/html");
  EXPECT_EQ(html.find("<script>"), std::string::npos) << html;
  EXPECT_NE(html.find("Hello &lt;script&gt;alert(1)&lt;/script&gt;,"), std::string::npos) << html;
  EXPECT_NE(part_of(mail, "text/plain").find("Hello <script>alert(1)</script>,"),
            std::string::npos);
}

// interface.md 14.3.4: a template in --mail-templates replaces the built-in
// one of its name, for notices and for the reset mail alike.
TEST(Notifications, Interface_14_3_4_OperatorTemplatesReplaceBuiltInOnes) {
  std::string dir = fresh_directory();
  std::ofstream(dir + "/password_changed.subject.mustache") << "Password of {{email}} changed\n";
  std::ofstream(dir + "/password_reset.text.mustache") << "Go to {{link}} now.\n";
  AuthdProcess authd(server_args({"--mail-templates", dir}));
  authd.add_user(kEmail, kPassword);
  ASSERT_EQ(post_json(authd.port(), "/forgot", forgot_body(kEmail)).status, 200);
  std::string reset_mail = wait_for_subject(authd, "Reset your password").at(0);
  EXPECT_NE(part_of(reset_mail, "text/plain").find("Go to http"), std::string::npos) << reset_mail;
  std::string token = reset_token_in(reset_mail);
  ASSERT_EQ(post_json(authd.port(), "/reset", reset_body(token, kNewPassword)).status, 200);
  wait_for_subject(authd, "Password of " + kEmail + " changed");
  std::filesystem::remove_all(dir);
}

// interface.md 14.3.4: a template that does not parse, or a directory that
// is not there, stops the start with exit 2 and says which file.
TEST(Notifications, Interface_14_3_4_BrokenTemplateStopsTheStart) {
  std::string dir = fresh_directory();
  std::ofstream(dir + "/email_changed.html.mustache") << "<p>{{#time}}never closed</p>\n";
  CommandResult broken = run_authd({"serve", "--mail-templates", dir});
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_NE(broken.output.find("bad_configuration"), std::string::npos) << broken.output;
  EXPECT_NE(broken.output.find("email_changed.html.mustache"), std::string::npos) << broken.output;
  CommandResult missing = run_authd({"serve", "--mail-templates", dir + "/nope"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace authd::test
