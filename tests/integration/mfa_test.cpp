// interface.md 12: the second factor over real HTTP, on SQLite and (run by
// scripts/test.sh) on PostgreSQL. Codes come from oathtool, an independent
// RFC 6238 implementation; the QR code is read by zbarimg.
#include <gtest/gtest.h>

#include <regex>

#include "admin_support.hpp"
#include "mfa_support.hpp"

namespace authd::test {
namespace {

// 12.1: enrolment needs the bearer token and the current password; its 200
// holds a 160-bit base32 secret, the otpauth:// URI with the issuer, and
// the URI as a QR code a real scanner reads.
TEST(Mfa, Interface_12_1_EnrolmentGivesSecretUriAndQrCodeAfterThePassword) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);

  EXPECT_EQ(post_json(authd.port(), "/mfa/totp", R"({"password":"x"})").status, 401);
  HttpResponse wrong = mfa_call(authd, token, "/mfa/totp", {{"password", "not the password"}});
  EXPECT_EQ(wrong.status, 403);
  EXPECT_EQ(mfa_call(authd, token, "/mfa/totp", {{"password", 5}}).status, 400);
  EXPECT_EQ(mfa_call(authd, token, "/mfa/totp", nlohmann::json::object()).status, 400);

  HttpResponse res = mfa_call(authd, token, "/mfa/totp", {{"password", kPassword}});
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("cache-control"), "no-store");
  nlohmann::json body = res.json();
  EXPECT_EQ(body.size(), 3u) << body;
  std::string secret = body["secret"];
  EXPECT_TRUE(std::regex_match(secret, std::regex("^[A-Z2-7]{32}$"))) << secret;  // 160 bits
  std::string uri = body["otpauthUri"];
  EXPECT_EQ(uri, "otpauth://totp/authd:alice%40example.com?secret=" + secret +
                     "&issuer=authd&algorithm=SHA1&digits=6&period=30");
  std::string svg = body["qrSvg"];
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(decoded_qr(authd, svg), uri);
}

TEST(Mfa, Interface_12_1_IssuerComesFromMfaIssuer) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--mfa-issuer", "Acme Cloud"});
  AuthdProcess authd(args);
  authd.add_user(kEmail, kPassword);
  nlohmann::json body = begin_enrolment(authd, authd.login(kEmail, kPassword));
  std::string uri = body.value("otpauthUri", "");
  EXPECT_EQ(uri.rfind("otpauth://totp/Acme%20Cloud:alice%40example.com?", 0), 0u) << uri;
  EXPECT_NE(uri.find("&issuer=Acme%20Cloud&"), std::string::npos) << uri;
  EXPECT_EQ(decoded_qr(authd, body.value("qrSvg", "")), uri);
}

// 12.1: the factor is pending until a valid code confirms it; then ten
// recovery codes, shown only in that answer; a pending factor asks nothing
// at login.
TEST(Mfa, Interface_12_1_ConfirmationWithACodeGivesTenRecoveryCodes) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string secret = begin_enrolment(authd, token).value("secret", "");
  EXPECT_EQ(login_with(authd, nlohmann::json::object()).status, 200);  // pending: no code needed

  std::string code = code_in_steps(secret, 0);
  std::string wrong = code == "000000" ? "000001" : "000000";
  EXPECT_EQ(mfa_call(authd, token, "/mfa/totp/confirm", {{"code", wrong}}).status, 403);
  EXPECT_EQ(
      mfa_call(authd, token, "/mfa/totp/confirm", {{"code", code_in_steps(secret, 3)}}).status,
      403);  // outside the window
  HttpResponse res = mfa_call(authd, token, "/mfa/totp/confirm", {{"code", code}});
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("cache-control"), "no-store");
  std::vector<std::string> codes = res.json()["recoveryCodes"].get<std::vector<std::string>>();
  EXPECT_EQ(codes.size(), 10u);
  EXPECT_EQ(std::set<std::string>(codes.begin(), codes.end()).size(), 10u);
  EXPECT_EQ(res.json().size(), 1u);

  // Confirmed: nothing is pending any more.
  EXPECT_EQ(
      mfa_call(authd, token, "/mfa/totp/confirm", {{"code", code_in_steps(secret, 1)}}).status,
      409);
  HttpResponse login = login_with(authd, nlohmann::json::object());
  EXPECT_EQ(login.status, 401);
  EXPECT_EQ(login.header("authd-second-factor"), "totp");
  // Stored only as digests: no code appears in the database.
  std::string stored = authd.sql("select hex(code_digest) from recovery_codes");
  EXPECT_EQ(lines(stored).size(), 10u);
  for (const std::string& c : codes) EXPECT_EQ(stored.find(c), std::string::npos);
}

// 12.1: a new enrolment replaces a pending one (its secret no longer
// confirms); with a confirmed factor it is 409.
TEST(Mfa, Interface_12_1_NewEnrolmentReplacesPendingAndConflictsWithConfirmed) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string first = begin_enrolment(authd, token).value("secret", "");
  std::string second = begin_enrolment(authd, token).value("secret", "");
  EXPECT_NE(first, second);
  EXPECT_EQ(mfa_call(authd, token, "/mfa/totp/confirm", {{"code", code_in_steps(first, 0)}}).status,
            403);
  EXPECT_EQ(
      mfa_call(authd, token, "/mfa/totp/confirm", {{"code", code_in_steps(second, 0)}}).status,
      200);
  HttpResponse again = mfa_call(authd, token, "/mfa/totp", {{"password", kPassword}});
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.body, R"({"code":409,"message":"Conflict"})");
  // Nothing to confirm, remove or renew without a factor: 409.
  authd.add_user("bob@example.com", kPassword);
  std::string bob = authd.login("bob@example.com", kPassword);
  for (const char* route : {"/mfa/totp/confirm", "/mfa/totp/remove", "/mfa/recovery-codes"})
    EXPECT_EQ(mfa_call(authd, bob, route, {{"code", "123456"}}).status, 409) << route;
}

// 12.3: the right password without a code, or with a wrong one: 401 with
// Authd-Second-Factor; a wrong password never says whether there is a
// factor; the right code logs in.
TEST(Mfa, Interface_12_3_LoginNeedsTheCodeAfterTheRightPassword) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);

  HttpResponse missing = login_with(authd, nlohmann::json::object());
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(missing.body, unauthorized_body());
  EXPECT_EQ(missing.header("authd-second-factor"), "totp");
  EXPECT_TRUE(missing.header("authorization").empty());

  std::string code = code_in_steps(enrolled.secret, 0);
  std::string wrong = code == "000000" ? "000001" : "000000";
  HttpResponse wrong_code = login_with(authd, {{"otp", wrong}});
  EXPECT_EQ(wrong_code.status, 401);
  EXPECT_EQ(wrong_code.header("authd-second-factor"), "totp");
  EXPECT_EQ(login_with(authd, {{"otp", "12345"}}).header("authd-second-factor"), "totp");

  HttpResponse wrong_password = login_with(authd, {{"otp", code}}, "not the password");
  EXPECT_EQ(wrong_password.status, 401);
  EXPECT_EQ(wrong_password.header_count("authd-second-factor"), 0u);

  HttpResponse ok = login_with(authd, {{"otp", code}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(get_with_token(authd.port(), "/me", token_of(ok)).status, 200);
}

// 12.3.7: a disabled account is 403 after the right password, with or
// without a code; the factor is not asked for.
TEST(Mfa, Interface_12_3_ADisabledAccountIs403WithOrWithoutACode) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", kEmail}), 0);
  HttpResponse without = login_with(authd, nlohmann::json::object());
  EXPECT_EQ(without.status, 403);
  EXPECT_EQ(without.header_count("authd-second-factor"), 0u);
  EXPECT_EQ(login_with(authd, {{"otp", code_in_steps(enrolled.secret, 0)}}).status, 403);
}

// 12.3: a step, once accepted, is never accepted again for the account,
// nor is an older one; a newer step inside the window still is.
TEST(Mfa, Interface_12_3_AStepIsAcceptedOnlyOnce) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);  // confirmed with the step before now
  std::string now_code = code_in_steps(enrolled.secret, 0);
  // The confirmation's own code, not "the step before now": a step may
  // have ended since the enrolment, and the step before now be a new one.
  HttpResponse replay_of_confirmation = login_with(authd, {{"otp", enrolled.confirmation_code}});
  EXPECT_EQ(replay_of_confirmation.status, 401);
  EXPECT_EQ(replay_of_confirmation.header("authd-second-factor"), "totp");

  EXPECT_EQ(login_with(authd, {{"otp", now_code}}).status, 200);
  HttpResponse replay = login_with(authd, {{"otp", now_code}});
  EXPECT_EQ(replay.status, 401);
  EXPECT_EQ(replay.header("authd-second-factor"), "totp");
  EXPECT_EQ(login_with(authd, {{"otp", code_in_steps(enrolled.secret, 1)}}).status, 200);
  EXPECT_EQ(login_with(authd, {{"otp", now_code}}).status, 401);  // older than the last one
}

// 12.3: two logins at once with one code: one session, not two.
TEST(Mfa, Interface_12_3_ConcurrentLoginsWithOneCodeHaveOneWinner) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string code = code_in_steps(enrolled.secret, 0);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0}, refused{0};
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&] {
      int status = login_with(authd, {{"otp", code}}).status;
      (status == 200 ? ok : refused)++;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(refused.load(), 5);
}

// 12.1, 12.3: a recovery code logs in once; typed in upper case and without
// its hyphens it is the same code.
TEST(Mfa, Interface_12_3_ARecoveryCodeWorksOnce) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  ASSERT_EQ(enrolled.recovery_codes.size(), 10u);
  std::string code = enrolled.recovery_codes[0];
  EXPECT_EQ(login_with(authd, {{"recoveryCode", code}}).status, 200);
  HttpResponse again = login_with(authd, {{"recoveryCode", code}});
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.header("authd-second-factor"), "totp");
  std::string typed;
  for (char c : enrolled.recovery_codes[1])
    if (c != '-') typed += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(login_with(authd, {{"recoveryCode", typed}}).status, 200);
  EXPECT_EQ(login_with(authd, {{"recoveryCode", "aaaa-aaaa-aaaa-aaaa"}}).status, 401);
  EXPECT_EQ(lines(authd.sql("select count(*) from recovery_codes")), std::vector<std::string>{"8"});
}

// 12.3, 6 /login 4: each 401 for a missing or wrong second factor is a
// failed login of the e-mail: after ten, even the right code gets 429.
TEST(Mfa, Interface_12_3_SecondFactorFailuresCountAsFailedLogins) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  for (int i = 0; i < 10; ++i) {
    HttpResponse res = login_with(authd, {{"otp", "000000"}});
    ASSERT_EQ(res.status, 401) << i;
  }
  HttpResponse throttled = login_with(authd, {{"otp", code_in_steps(enrolled.secret, 0)}});
  EXPECT_EQ(throttled.status, 429);
  EXPECT_FALSE(throttled.header("retry-after").empty());
  // The code routes are throttled with the same counters.
  EXPECT_EQ(mfa_call(authd, enrolled.token, "/mfa/recovery-codes",
                     {{"code", code_in_steps(enrolled.secret, 0)}})
                .status,
            429);
}

// 12.1: wrong codes on the factor's own routes count as failed logins too.
TEST(Mfa, Interface_12_1_WrongCodesOnTheFactorRoutesAreThrottled) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(mfa_call(authd, enrolled.token, "/mfa/totp/remove", {{"code", "000000"}}).status, 403)
        << i;
  EXPECT_EQ(
      mfa_call(authd, enrolled.token, "/mfa/totp/remove", {{"code", enrolled.recovery_codes[0]}})
          .status,
      429);
}

// 12.3: for an account without a confirmed factor, otp and recoveryCode are
// ignored; only their types are checked.
TEST(Mfa, Interface_12_3_WithoutAFactorTheCodesAreOnlyTypeChecked) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  EXPECT_EQ(login_with(authd, {{"otp", "not a code"}, {"recoveryCode", "x"}}).status, 200);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"otp", 123456}}, nlohmann::json{{"otp", nullptr}},
        nlohmann::json{{"recoveryCode", false}}}) {
    HttpResponse res = login_with(authd, bad);
    EXPECT_EQ(res.status, 400) << bad;
  }
}

// 12.1: removal takes a current code or a recovery code, and removes the
// factor with its recovery codes; logins then need no code.
TEST(Mfa, Interface_12_1_RemovalWithACodeRemovesTheFactorAndItsCodes) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  EXPECT_EQ(mfa_call(authd, enrolled.token, "/mfa/totp/remove", {{"code", "000000"}}).status, 403);
  EXPECT_EQ(post_json(authd.port(), "/mfa/totp/remove", R"({"code":"123456"})").status, 401);
  HttpResponse removed =
      mfa_call(authd, enrolled.token, "/mfa/totp/remove", {{"code", enrolled.recovery_codes[3]}});
  EXPECT_EQ(removed.status, 204);
  EXPECT_TRUE(removed.body.empty());
  EXPECT_EQ(login_with(authd, nlohmann::json::object()).status, 200);
  EXPECT_EQ(lines(authd.sql("select count(*) from recovery_codes")), std::vector<std::string>{"0"});
  EXPECT_EQ(lines(authd.sql("select count(*) from totp_factors")), std::vector<std::string>{"0"});
}

TEST(Mfa, Interface_12_1_RemovalWithATotpCode) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  EXPECT_EQ(mfa_call(authd, enrolled.token, "/mfa/totp/remove",
                     {{"code", code_in_steps(enrolled.secret, 0)}})
                .status,
            204);
  EXPECT_EQ(login_with(authd, nlohmann::json::object()).status, 200);
}

// 12.1: a new set of recovery codes voids the old one.
TEST(Mfa, Interface_12_1_NewRecoveryCodesVoidTheOldSet) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  HttpResponse res = mfa_call(authd, enrolled.token, "/mfa/recovery-codes",
                              {{"code", code_in_steps(enrolled.secret, 0)}});
  ASSERT_EQ(res.status, 200) << res.body;
  std::vector<std::string> fresh = res.json()["recoveryCodes"].get<std::vector<std::string>>();
  ASSERT_EQ(fresh.size(), 10u);
  EXPECT_EQ(login_with(authd, {{"recoveryCode", enrolled.recovery_codes[5]}}).status, 401);
  EXPECT_EQ(login_with(authd, {{"recoveryCode", fresh[0]}}).status, 200);
  // A recovery code may prove it too (and is used up by it).
  HttpResponse again = mfa_call(authd, enrolled.token, "/mfa/recovery-codes", {{"code", fresh[1]}});
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(login_with(authd, {{"recoveryCode", fresh[2]}}).status, 401);
}

// 12.4 and 10.4: an operator removes the factor of a user who lost it, by
// the CLI or the admin route; the admin view lists confirmed factors only.
TEST(Mfa, Interface_12_4_OperatorsResetTheFactorByCliAndAdminRoute) {
  using admin::call;
  using admin::create_key;
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string key = create_key(authd, "ops");
  HttpResponse found = call(authd, key, "GET", "/admin/users?email=" + kEmail);
  ASSERT_EQ(found.status, 200);
  std::string id = found.json()["users"][0]["id"];
  EXPECT_EQ(found.json()["users"][0]["mfa"], nlohmann::json::array({"totp"}));
  EXPECT_EQ(call(authd, key, "GET", "/admin/users/" + id).json()["mfa"],
            nlohmann::json::array({"totp"}));

  EXPECT_EQ(call(authd, key, "DELETE", "/admin/users/" + id + "/mfa").status, 204);
  EXPECT_EQ(call(authd, key, "GET", "/admin/users/" + id).json()["mfa"], nlohmann::json::array());
  EXPECT_EQ(login_with(authd, nlohmann::json::object()).status, 200);

  // Again, then by the CLI.
  std::string secret = begin_enrolment(authd, enrolled.token).value("secret", "");
  EXPECT_EQ(call(authd, key, "GET", "/admin/users/" + id).json()["mfa"], nlohmann::json::array())
      << "a pending factor is not listed";
  ASSERT_EQ(
      mfa_call(authd, enrolled.token, "/mfa/totp/confirm", {{"code", code_in_steps(secret, 0)}})
          .status,
      200);
  EXPECT_EQ(login_with(authd, nlohmann::json::object()).status, 401);
  std::string out;
  EXPECT_EQ(authd.cli({"user", "mfa-reset", "--email", kEmail}, "", &out), 0) << out;
  EXPECT_EQ(login_with(authd, nlohmann::json::object()).status, 200);
  EXPECT_EQ(lines(authd.sql("select count(*) from recovery_codes")), std::vector<std::string>{"0"});
  EXPECT_EQ(authd.cli({"user", "mfa-reset", "--email", "nobody@example.com"}), 4);
}

// 12.2: the secret is nowhere in the database in clear (neither its bytes
// in base32 nor in hex), and a copy of the database with another key yields
// no usable secret: the right code no longer logs in.
TEST(Mfa, Interface_12_2_SecretsAreSealedWithAKeyOutsideTheDatabase) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string sealed =
      without_trailing_newlines(authd.sql("select sealed_secret from totp_factors"));
  EXPECT_EQ(sealed.rfind("v1.", 0), 0u) << sealed;
  EXPECT_EQ(sealed.find(enrolled.secret), std::string::npos);
  std::string dump = authd.sql("select * from totp_factors") + authd.sql("select * from users");
  EXPECT_EQ(dump.find(enrolled.secret), std::string::npos);
  if (!on_postgres()) {
    std::string bytes = stored_bytes(authd);
    EXPECT_EQ(bytes.find(enrolled.secret), std::string::npos);
  }

  // The same database with another key: an instance beside it on
  // PostgreSQL, a copy of the file on SQLite (which gets a key of its own).
  std::string other_key = authd.directory() + "/other.key";
  ASSERT_EQ(run_shell("umask 077 && openssl rand -hex 32 > " + shell_quote(other_key)).exit_code,
            0);
  std::string url = authd.database_url();
  if (!on_postgres()) {
    authd.stop();
    std::string copy = authd.directory() + "/copy.db";
    std::filesystem::copy_file(authd.database_path(), copy);
    url = "sqlite:" + copy;
  }
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--secret-key-file", other_key});
  AuthdProcess thief(args, url);
  HttpResponse res = post_json(
      thief.port(), "/login",
      nlohmann::json{
          {"email", kEmail}, {"password", kPassword}, {"otp", code_in_steps(enrolled.secret, 0)}}
          .dump());
  EXPECT_EQ(res.status, 401);
  EXPECT_EQ(res.header("authd-second-factor"), "totp");
}

// 12.2: with SQLite and no --secret-key-file, the key file is created
// beside the database on first start, mode 0600, and kept across restarts.
TEST(Mfa, Interface_12_2_KeyFileIsCreatedBesideTheSqliteDatabase) {
  AUTHD_SQLITE_ONLY();
  AuthdProcess authd(fast_hashing());
  std::string key_file = authd.database_path() + ".key";
  struct stat info {};
  ASSERT_EQ(::stat(key_file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::string key = file_bytes(key_file);
  EXPECT_TRUE(std::regex_match(key, std::regex("^[0-9a-f]{64}\n$")));
  EXPECT_EQ(authd.log_text().find(key.substr(0, 16)), std::string::npos);

  Enrolled enrolled = enrolled_account(authd);
  authd.stop();
  authd.start();
  EXPECT_EQ(file_bytes(key_file), key);
  EXPECT_EQ(login_with(authd, {{"otp", code_in_steps(enrolled.secret, 0)}}).status, 200);
}

// 12.2: a key file that cannot be used stops the start, naming the problem
// and never the file's content.
TEST(Mfa, Interface_12_2_AnUnusableKeyFileStopsTheStart) {
  AuthdProcess authd(fast_hashing());
  std::string bad = authd.directory() + "/bad.key";
  std::ofstream(bad) << "0123456789abcdef\n";
  ::chmod(bad.c_str(), 0600);
  CommandResult result =
      run_authd({"serve", "--database", authd.database_url(), "--listen", "127.0.0.1:0",
                 "--admin-listen", "off", "--secret-key-file", bad});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("not a key"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("0123456789abcdef"), std::string::npos) << result.output;
  ::chmod(bad.c_str(), 0644);
  result = run_authd({"serve", "--database", authd.database_url(), "--listen", "127.0.0.1:0",
                      "--admin-listen", "off", "--secret-key-file", bad});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("readable by every user"), std::string::npos) << result.output;
}

// 12.2, key rotation: with the new key and the previous one, secrets sealed
// by the previous key still open and are sealed anew at their next use;
// then the previous key can go.
TEST(Mfa, Interface_12_2_KeyRotationKeepsFactorsWorking) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string old_key = on_postgres() ? postgres_secret_key_file() : authd.database_path() + ".key";
  std::string new_key = authd.directory() + "/new.key";
  ASSERT_EQ(run_shell("umask 077 && openssl rand -hex 32 > " + shell_quote(new_key)).exit_code, 0);
  std::string before = authd.sql("select sealed_secret from totp_factors");
  authd.stop();
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--secret-key-file", new_key, "--previous-secret-key-file", old_key});
  AuthdProcess rotated(args, authd.database_url());
  EXPECT_EQ(login_with(rotated, {{"otp", code_in_steps(enrolled.secret, 0)}}).status, 200);
  std::string after = rotated.sql("select sealed_secret from totp_factors");
  EXPECT_NE(after, before);
  rotated.stop();
  std::vector<std::string> new_only = fast_hashing();
  new_only.insert(new_only.end(), {"--secret-key-file", new_key});
  AuthdProcess done(new_only, authd.database_url());
  EXPECT_EQ(login_with(done, {{"otp", code_in_steps(enrolled.secret, 1)}}).status, 200);
}

// 12.2.3: `authd mfa reseal` seals every secret of the previous key anew at
// once, so that the previous key can go before every user has logged in.
TEST(Mfa, Interface_12_2_ResealSealsEveryFactorWithTheNewKey) {
  AuthdProcess authd(fast_hashing());
  Enrolled enrolled = enrolled_account(authd);
  std::string old_key = on_postgres() ? postgres_secret_key_file() : authd.database_path() + ".key";
  std::string new_key = authd.directory() + "/new.key";
  ASSERT_EQ(run_shell("umask 077 && openssl rand -hex 32 > " + shell_quote(new_key)).exit_code, 0);
  authd.stop();

  std::string out = resealed(authd, new_key, "", 1);
  EXPECT_NE(out.find("resealed 0, unreadable 1"), std::string::npos) << out;  // without the old key
  out = resealed(authd, new_key, old_key, 0);
  EXPECT_NE(out.find("resealed 1, unreadable 0"), std::string::npos) << out;
  out = resealed(authd, new_key, "", 0);
  EXPECT_NE(out.find("resealed 0, unreadable 0"), std::string::npos) << out;

  std::vector<std::string> new_only = fast_hashing();
  new_only.insert(new_only.end(), {"--secret-key-file", new_key});
  AuthdProcess done(new_only, authd.database_url());
  EXPECT_EQ(login_with(done, {{"otp", code_in_steps(enrolled.secret, 0)}}).status, 200);
}

}  // namespace
}  // namespace authd::test
