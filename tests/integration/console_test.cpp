// interface.md 21: the operator's console over real HTTP, on SQLite and (run
// by scripts/test.sh) on PostgreSQL: operator grants from the command line,
// the console's sign-in (password and TOTP code, for an operator only), its
// cookie on the management listener, the admin API accepting it with the
// grant's scope, the Origin rule and the `operator:EMAIL` actor, idle end
// and sign-out, and the page's headers. The browser's side is
// tests/browser/console.test.mjs.
#include <gtest/gtest.h>

#include <regex>

#include "admin_support.hpp"
#include "mfa_support.hpp"

namespace authd::test {
namespace {

const std::string kConsoleOrigin = "http://127.0.0.1";  // the harness sends Host: 127.0.0.1
const std::string kBob = "bob@example.com";

int operator_cli(const AuthdProcess& authd, std::vector<std::string> args,
                 std::string* out = nullptr, std::string* err = nullptr) {
  std::string ignored_out;
  std::string ignored_err;
  args.insert(args.begin(), "operator");
  return authd.cli_streams(args, "", out ? out : &ignored_out, err ? err : &ignored_err);
}

HttpResponse console_post(const AuthdProcess& authd, const std::string& target,
                          const nlohmann::json& body,
                          Headers headers = {{"Origin", kConsoleOrigin}}) {
  headers.emplace_back("Content-Type", "application/json");
  return send_request(authd.admin_port(), "POST", target, headers, body.dump());
}

HttpResponse console_sign_in(const AuthdProcess& authd, const std::string& email,
                             nlohmann::json extra, Headers headers = {{"Origin", kConsoleOrigin}}) {
  extra["email"] = email;
  extra["password"] = kPassword;
  return console_post(authd, "/console/sign-in", extra, std::move(headers));
}

// The cookie's "name=value" from a sign-in's Set-Cookie.
std::string cookie_of(const HttpResponse& res) {
  std::string set = res.header("Set-Cookie");
  return set.substr(0, set.find(';'));
}

// A request with the console's cookie (and the Origin given, if any).
HttpResponse with_cookie(const AuthdProcess& authd, const std::string& cookie,
                         const std::string& method, const std::string& target,
                         const std::optional<std::string>& origin = kConsoleOrigin,
                         const std::optional<nlohmann::json>& body = std::nullopt) {
  Headers headers = {{"Cookie", cookie}};
  if (origin) headers.emplace_back("Origin", *origin);
  if (body) headers.emplace_back("Content-Type", "application/json");
  return send_request(authd.admin_port(), method, target, headers, body ? body->dump() : "");
}

// kEmail with a TOTP factor, granted the console with `scope`, signed in
// with the current step's code (or, once that is used, `second`): the
// cookie.
std::string signed_in_operator(const AuthdProcess& authd, const Enrolled& enrolled,
                               const std::string& scope, nlohmann::json second = nullptr) {
  EXPECT_EQ(operator_cli(authd, {"grant", "--email", kEmail, "--scope", scope}), 0);
  if (second.is_null()) second = {{"otp", code_in_steps(enrolled.secret, 0)}};
  HttpResponse res = console_sign_in(authd, kEmail, second);
  EXPECT_EQ(res.status, 200) << res.body;
  return cookie_of(res);
}

std::string user_id_of(const AuthdProcess& authd, const std::string& key,
                       const std::string& email) {
  HttpResponse res = admin::call(authd, key, "GET", "/admin/users?email=" + email);
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json()["users"][0]["id"].get<std::string>() : "";
}

TEST(Console, Interface_21_2_OperatorGrantRevokeAndListFromTheCommandLine) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  EXPECT_EQ(operator_cli(authd, {"grant", "--email", "nobody@example.com", "--scope", "read"}), 4);
  EXPECT_EQ(operator_cli(authd, {"grant", "--email", kEmail, "--scope", "admin"}), 2);
  EXPECT_EQ(operator_cli(authd, {"grant", "--email", kEmail, "--scope", "read"}), 0);
  EXPECT_EQ(operator_cli(authd, {"grant", "--email", "ALICE@example.com", "--scope", "write"}), 0);
  std::string listed;
  EXPECT_EQ(operator_cli(authd, {"list"}, &listed), 0);
  nlohmann::json line = nlohmann::json::parse(listed, nullptr, false);
  ASSERT_TRUE(line.is_object()) << listed;  // one grant: one line, the scope changed
  EXPECT_EQ(line["email"], kEmail);
  EXPECT_EQ(line["scope"], "write");
  EXPECT_EQ(line["grantedBy"], "cli");
  EXPECT_EQ(operator_cli(authd, {"revoke", "--email", kEmail}), 0);
  EXPECT_EQ(operator_cli(authd, {"revoke", "--email", kEmail}), 4);
  listed.clear();
  EXPECT_EQ(operator_cli(authd, {"list"}, &listed), 0);
  EXPECT_EQ(listed, "");
  std::string events;
  EXPECT_EQ(authd.cli({"events", "--type", "operator.granted"}, "", &events), 0);
  EXPECT_NE(events.find(R"("scope":"write")"), std::string::npos) << events;
  events.clear();
  EXPECT_EQ(authd.cli({"events", "--type", "operator.revoked"}, "", &events), 0);
  EXPECT_NE(events.find(R"("actor":"cli")"), std::string::npos) << events;
}

TEST(Console, Interface_21_2_SignInNeedsAGrantThePasswordAndATotpCode) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  // Right password and code, but no grant.
  HttpResponse refused =
      console_sign_in(authd, kEmail, {{"otp", code_in_steps(enrolled.secret, 0)}});
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(refused.header("Authd-Console-Refusal"), "not-operator");
  ASSERT_EQ(operator_cli(authd, {"grant", "--email", kEmail, "--scope", "write"}), 0);
  HttpResponse no_code = console_sign_in(authd, kEmail, nlohmann::json::object());
  EXPECT_EQ(no_code.status, 401);
  EXPECT_EQ(no_code.header("Authd-Second-Factor"), "totp");
  nlohmann::json wrong = {{"email", kEmail}, {"password", "wrong"}, {"otp", "000000"}};
  EXPECT_EQ(console_post(authd, "/console/sign-in", wrong).status, 401);
  // From another origin, or none: refused before anything is checked.
  EXPECT_EQ(console_sign_in(authd, kEmail, {{"otp", "123456"}}, {{"Origin", "http://evil.example"}})
                .status,
            403);
  EXPECT_EQ(console_sign_in(authd, kEmail, {{"otp", "123456"}}, {}).status, 403);

  HttpResponse ok = console_sign_in(authd, kEmail, {{"otp", code_in_steps(enrolled.secret, 1)}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json(),
            nlohmann::json({{"email", kEmail}, {"scope", "write"}, {"idleTimeoutSeconds", 900}}));
  std::string set_cookie = ok.header("Set-Cookie");
  EXPECT_TRUE(std::regex_match(set_cookie,
                               std::regex("^authd_console=authdop_[A-Za-z0-9_-]{43,}; HttpOnly; "
                                          "SameSite=Strict; Path=/$")))
      << set_cookie;
  EXPECT_EQ(ok.body.find("authdop_"), std::string::npos);  // the token is in the cookie only
  // Stored only as a digest.
  std::string token = cookie_of(ok).substr(std::string("authd_console=").size());
  EXPECT_EQ(authd.sql("SELECT count(*) FROM console_sessions"), "1\n");
  EXPECT_EQ(authd.sql("SELECT hex(token_digest) FROM console_sessions").find(token),
            std::string::npos);

  // An operator without a TOTP factor is refused, whatever the password.
  authd.add_user(kBob, kPassword);
  ASSERT_EQ(operator_cli(authd, {"grant", "--email", kBob, "--scope", "write"}), 0);
  HttpResponse no_factor = console_sign_in(authd, kBob, nlohmann::json::object());
  EXPECT_EQ(no_factor.status, 403);
  EXPECT_EQ(no_factor.header("Authd-Console-Refusal"), "second-factor-missing");
}

TEST(Console, Interface_21_2_AdminApiTakesTheCookieWithScopeOriginAndOperatorActor) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  const std::string key = admin::create_key(authd, "robot");
  authd.add_user(kBob, kPassword);
  const std::string bob = user_id_of(authd, key, kBob);
  std::string cookie = signed_in_operator(authd, enrolled, "write");

  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users/" + bob, std::nullopt).status, 200);
  nlohmann::json disable = {{"disabled", true}};
  // The Origin rule (13.5): missing or foreign, a change is refused.
  EXPECT_EQ(
      with_cookie(authd, cookie, "PATCH", "/admin/users/" + bob, std::nullopt, disable).status,
      403);
  EXPECT_EQ(
      with_cookie(authd, cookie, "PATCH", "/admin/users/" + bob, "http://127.0.0.1:1", disable)
          .status,
      403);
  EXPECT_EQ(with_cookie(authd, cookie, "PATCH", "/admin/users/" + bob, "null", disable).status,
            403);
  EXPECT_FALSE(admin::call(authd, key, "GET", "/admin/users/" + bob).json()["disabled"]);
  HttpResponse patched =
      with_cookie(authd, cookie, "PATCH", "/admin/users/" + bob, kConsoleOrigin, disable);
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_TRUE(patched.json()["disabled"]);
  HttpResponse events =
      admin::call(authd, key, "GET", "/admin/events?type=user.disabled&userId=" + bob);
  ASSERT_EQ(events.status, 200);
  ASSERT_EQ(events.json()["events"].size(), 1u) << events.body;
  EXPECT_EQ(events.json()["events"][0]["actor"], "operator:" + kEmail);

  // Admin keys keep working beside it, with their own actor.
  nlohmann::json enable = {{"disabled", false}};
  EXPECT_EQ(admin::call(authd, key, "PATCH", "/admin/users/" + bob, enable).status, 200);
  events = admin::call(authd, key, "GET", "/admin/events?type=user.enabled&userId=" + bob);
  EXPECT_EQ(events.json()["events"][0]["actor"], "admin:robot");
  // An unknown console cookie is refused like no credentials.
  EXPECT_EQ(with_cookie(authd, "authd_console=authdop_nope", "GET", "/admin/users").status, 401);
}

TEST(Console, Interface_21_2_ReadOperatorIsRefusedEveryChange) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  const std::string key = admin::create_key(authd, "robot");
  authd.add_user(kBob, kPassword);
  const std::string bob = user_id_of(authd, key, kBob);
  std::string session = authd.login(kBob, kPassword);
  std::string cookie = signed_in_operator(authd, enrolled, "read");

  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users/" + bob).status, 200);
  HttpResponse sessions = with_cookie(authd, cookie, "GET", "/admin/users/" + bob + "/sessions");
  ASSERT_EQ(sessions.status, 200);
  std::string session_id = sessions.json()["sessions"][0]["id"];
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/events").status, 200);
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/clients").status, 200);

  struct Change {
    std::string method;
    std::string target;
    std::optional<nlohmann::json> body;
  };
  const std::vector<Change> changes = {
      {"PATCH", "/admin/users/" + bob, nlohmann::json{{"disabled", true}}},
      {"PUT", "/admin/users/" + bob + "/password", nlohmann::json{{"password", "another one"}}},
      {"DELETE", "/admin/users/" + bob + "/sessions", std::nullopt},
      {"DELETE", "/admin/sessions/" + session_id, std::nullopt},
      {"DELETE", "/admin/users/" + bob + "/mfa", std::nullopt},
      {"POST", "/admin/users/" + bob + "/password-reset", std::nullopt},
      {"DELETE", "/admin/users/" + bob, std::nullopt},
      {"POST", "/admin/users", nlohmann::json{{"email", "carol@example.com"}}},
      {"POST", "/admin/clients",
       nlohmann::json{
           {"name", "x"}, {"type", "confidential"}, {"redirectUris", {"https://app.example/cb"}}}},
  };
  for (const Change& change : changes) {
    HttpResponse res =
        with_cookie(authd, cookie, change.method, change.target, kConsoleOrigin, change.body);
    admin::expect_error(res, 403, change.method + " " + change.target);
  }
  // Nothing changed: bob's session is live, the account there.
  EXPECT_EQ(
      send_request(authd.port(), "GET", "/me", {{"Authorization", "Bearer " + session}}).status,
      200);
}

TEST(Console, Interface_21_2_SessionEndsWhenIdleAtSignOutAndWhenTheGrantGoes) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string cookie = signed_in_operator(authd, enrolled, "write");
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/console/session").status, 200);
  // Idle past its end (as if 15 minutes had passed unused): refused.
  authd.sql("UPDATE console_sessions SET idle_until = 1");
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/console/session").status, 401);
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users").status, 401);

  // Sign-out: the session ends, the cookie is cleared, the event recorded.
  cookie =
      signed_in_operator(authd, enrolled, "write", {{"otp", code_in_steps(enrolled.secret, 1)}});
  HttpResponse cross =
      with_cookie(authd, cookie, "POST", "/console/sign-out", "http://evil.example");
  EXPECT_EQ(cross.status, 403);
  HttpResponse out = with_cookie(authd, cookie, "POST", "/console/sign-out");
  EXPECT_EQ(out.status, 204);
  EXPECT_NE(out.header("Set-Cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users").status, 401);
  std::string events;
  EXPECT_EQ(authd.cli({"events", "--type", "console.signed_out"}, "", &events), 0);
  EXPECT_NE(events.find("\"actor\":\"operator:" + kEmail + "\""), std::string::npos) << events;

  // Revoking the grant ends the sessions at once.
  ASSERT_FALSE(enrolled.recovery_codes.empty());
  HttpResponse again =
      console_sign_in(authd, kEmail, {{"recoveryCode", enrolled.recovery_codes[0]}});
  ASSERT_EQ(again.status, 200) << again.body;
  cookie = cookie_of(again);
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users").status, 200);
  ASSERT_EQ(operator_cli(authd, {"revoke", "--email", kEmail}), 0);
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users").status, 401);
}

TEST(Console, Interface_21_2_ConsoleTokenAndApiSessionDoNotStandForEachOther) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string cookie = signed_in_operator(authd, enrolled, "write");
  std::string token = cookie.substr(std::string("authd_console=").size());
  EXPECT_EQ(send_request(authd.port(), "GET", "/me", {{"Authorization", "Bearer " + token}}).status,
            401);
  EXPECT_EQ(admin::call(authd, token, "GET", "/admin/users").status, 401);
  EXPECT_EQ(with_cookie(authd, "authd_console=" + enrolled.token, "GET", "/admin/users").status,
            401);
}

TEST(Console, Interface_21_1_PageOnTheManagementListenerOnlyUnframed) {
  AuthdProcess authd(fast_hashing());
  HttpResponse page = send_request(authd.admin_port(), "GET", "/console/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.header("Content-Security-Policy").find("frame-ancestors 'none'"),
            std::string::npos);
  EXPECT_EQ(page.header("Content-Security-Policy").find("unsafe-inline"), std::string::npos);
  EXPECT_EQ(page.header("X-Frame-Options"), "DENY");
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/console/console.js").status, 200);
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/console/console-admin.js").status, 200);
  EXPECT_EQ(send_request(authd.admin_port(), "GET", "/console/console.css").status, 200);
  HttpResponse bare = send_request(authd.admin_port(), "GET", "/console");
  EXPECT_EQ(bare.status, 302);
  EXPECT_EQ(bare.header("Location"), "/console/");
  EXPECT_EQ(send_request(authd.port(), "GET", "/console/").status, 404);
  EXPECT_EQ(send_request(authd.port(), "POST", "/console/sign-in").status, 404);
}

TEST(Console, Interface_10_4_18_OperatorSendsAPasswordResetMail) {
  AuthdProcess authd(fast_hashing());
  const std::string key = admin::create_key(authd, "robot");
  const std::string reader = admin::create_key(authd, "reader", "read");
  authd.add_user(kEmail, kPassword);
  const std::string alice = user_id_of(authd, key, kEmail);
  const std::string target = "/admin/users/" + alice + "/password-reset";
  admin::expect_error(admin::call(authd, reader, "POST", target), 403);
  admin::expect_error(
      admin::call(authd, key, "POST",
                  "/admin/users/0190f0e0-0000-7000-8000-000000000000/password-reset"),
      404);
  EXPECT_EQ(admin::call(authd, key, "POST", target).status, 204);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_NE(mails[0].find("reset#token="), std::string::npos) << mails[0];
  HttpResponse events =
      admin::call(authd, key, "GET", "/admin/events?type=password.reset_requested");
  EXPECT_EQ(events.json()["events"][0]["actor"], "admin:robot");
  EXPECT_EQ(
      admin::call(authd, key, "PATCH", "/admin/users/" + alice, nlohmann::json{{"disabled", true}})
          .status,
      200);
  admin::expect_error(admin::call(authd, key, "POST", target), 409);
}

TEST(Console, Interface_21_2_ErasureRemovesTheGrant) {
  AuthdProcess authd(fast_hashing());
  const std::string key = admin::create_key(authd, "robot");
  Enrolled enrolled = enrolled_account(authd);
  std::string cookie = signed_in_operator(authd, enrolled, "write");
  const std::string alice = user_id_of(authd, key, kEmail);
  EXPECT_EQ(admin::call(authd, key, "DELETE", "/admin/users/" + alice).status, 204);
  std::string listed;
  EXPECT_EQ(operator_cli(authd, {"list"}, &listed), 0);
  EXPECT_EQ(listed, "");
  EXPECT_EQ(authd.sql("SELECT count(*) FROM console_sessions"), "0\n");
  EXPECT_EQ(with_cookie(authd, cookie, "GET", "/admin/users").status, 401);
}

}  // namespace
}  // namespace authd::test
