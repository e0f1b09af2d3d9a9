// interface.md 16: passkeys over real HTTP, on SQLite and (run by
// scripts/test.sh) on PostgreSQL. Responses come from a software
// authenticator of the tests' own (tests/support/soft_authenticator.hpp),
// bent one check at a time; tests/browser/passkeys_page.test.mjs does the
// same with Chromium's virtual authenticator.
#include <gtest/gtest.h>

#include <future>
#include <regex>

#include "admin_support.hpp"
#include "mfa_support.hpp"
#include "passkey_support.hpp"

namespace authd::test {
namespace {

// 16.2.1: the options need the token and the current password, and ask for
// a discoverable credential with user verification and no attestation.
TEST(Passkeys, Interface_16_2_1_RegistrationOptionsNeedTheTokenAndThePassword) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);

  EXPECT_EQ(post_json(authd.port(), "/webauthn/register/options", R"({"password":"x"})").status,
            401);
  EXPECT_EQ(
      bearer_post(authd, token, "/webauthn/register/options", {{"password", "wrong one"}}).status,
      403);
  EXPECT_EQ(bearer_post(authd, token, "/webauthn/register/options", {{"password", 5}}).status, 400);

  nlohmann::json options = creation_options(authd, token);
  HttpResponse me = get_with_token(authd.port(), "/me", token);
  std::string user_id = me.json()["id"];
  EXPECT_EQ(options["rp"], (nlohmann::json{{"id", kRpId}, {"name", "authd"}}));
  EXPECT_EQ(options["user"]["id"], test_support::to_base64url(user_id));
  EXPECT_EQ(options["user"]["name"], kEmail);
  EXPECT_EQ(test_support::from_base64url(options["challenge"]).size(), 32u);
  EXPECT_EQ(
      options["pubKeyCredParams"],
      nlohmann::json::parse(R"([{"type":"public-key","alg":-7},{"type":"public-key","alg":-8}])"));
  EXPECT_EQ(options["timeout"], 300000);
  EXPECT_EQ(options["attestation"], "none");
  EXPECT_EQ(options["authenticatorSelection"]["residentKey"], "required");
  EXPECT_EQ(options["authenticatorSelection"]["userVerification"], "required");
  EXPECT_EQ(options["excludeCredentials"], nlohmann::json::array());
  EXPECT_NE(creation_options(authd, token)["challenge"], options["challenge"]);
}

// 16.2.2: the first passkey is the account's first second factor: ten
// recovery codes come with it; a second passkey gets none; the options
// then exclude both.
TEST(Passkeys, Interface_16_2_2_RegistrationAddsAPasskeyWithRecoveryCodesForTheFirstFactor) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator phone;
  SoftAuthenticator key(-8);

  HttpResponse first = register_with(authd, token, phone, {}, {{"name", "Phone"}});
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(first.header("cache-control"), "no-store");
  nlohmann::json body = first.json();
  EXPECT_EQ(body["passkey"]["id"], phone.last_credential_id());
  EXPECT_EQ(body["passkey"]["name"], "Phone");
  EXPECT_TRUE(body["passkey"]["lastUsedAt"].is_null());
  EXPECT_EQ(body["passkey"]["backedUp"], false);
  ASSERT_EQ(body["recoveryCodes"].size(), 10u) << body;

  HttpResponse second = register_with(authd, token, key, {}, {}, &phone);  // 16.4.3
  ASSERT_EQ(second.status, 201) << second.body;
  EXPECT_FALSE(second.json().contains("recoveryCodes")) << second.body;
  EXPECT_EQ(second.json()["passkey"]["name"], "Passkey");

  nlohmann::json options = creation_options(authd, token, &phone);
  ASSERT_EQ(options["excludeCredentials"].size(), 2u);
  EXPECT_EQ(options["excludeCredentials"][0]["id"], phone.last_credential_id());
  HttpResponse list = get_with_token(authd.port(), "/webauthn/credentials", token);
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_EQ(list.json()["passkeys"].size(), 2u);
  EXPECT_EQ(list.json()["passkeys"][1]["id"], key.last_credential_id());

  std::vector<nlohmann::json> enabled = events_of_type(authd, "mfa.enabled");
  ASSERT_EQ(enabled.size(), 2u);
  EXPECT_EQ(enabled[1]["detail"],
            (nlohmann::json{{"factor", "webauthn"}, {"passkeyId", phone.last_credential_id()}}));
  SoftAuthenticator unnamed;
  EXPECT_EQ(register_with(authd, token, unnamed, {}, {{"name", ""}}, &phone).status, 400);
  // 14.3.1: the owner is told, once per passkey, in the passkey's words.
  std::vector<std::string> mails = authd.wait_for_mails(2);
  ASSERT_EQ(mails.size(), 2u);
  EXPECT_NE(mails[0].find("A passkey was added"), std::string::npos) << mails[0];
}

// 16.7.1: each registration check, failed alone, answers 400 naming it.
TEST(Passkeys, Interface_16_7_1_EachFailedRegistrationCheckIs400NamingIt) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  constexpr std::uint8_t kUp = 0x01, kUv = 0x04, kAt = 0x40;
  struct Case {
    std::string check;
    Tamper tamper;
    int algorithm = -7;
  };
  std::vector<Case> cases;
  cases.push_back({"clientData", {.client_data_json = std::string("[]")}});
  cases.push_back({"type", {.type = std::string("webauthn.get")}});
  cases.push_back(
      {"challenge", {.challenge_b64url = test_support::to_base64url(std::string(32, 'x'))}});
  cases.push_back({"origin", {.origin = std::string("https://evil.example")}});
  cases.push_back({"crossOrigin", {.cross_origin = true}});
  cases.push_back({"attestationObject", {.attestation_object = std::string("\xa0\x01", 2)}});
  cases.push_back({"authenticatorData", {.authenticator_data_size = std::size_t{36}}});
  cases.push_back({"rpIdHash", {.rp_id = std::string("evil.example")}});
  cases.push_back({"userPresent", {.flags = std::uint8_t(kUv | kAt)}});
  cases.push_back({"userVerified", {.flags = std::uint8_t(kUp | kAt)}});
  cases.push_back({"attestedCredentialData", {.flags = std::uint8_t(kUp | kUv)}});
  cases.push_back({"credentialId", {.credential_id = std::string("another id")}});
  cases.push_back({"algorithm", {.cose_alg = -257}});
  cases.push_back({"publicKey", {.bad_public_key = true}});
  cases.push_back({"publicKey", {.bad_public_key = true}, -8});
  cases.push_back({"attestation", {.fmt = std::string("packed")}});
  cases.push_back({"attestation", {.attestation_statement = true}});
  for (const Case& c : cases) {
    SoftAuthenticator device(c.algorithm);
    HttpResponse res = register_with(authd, token, device, c.tamper);
    EXPECT_EQ(res.status, 400) << c.check << ": " << res.body;
    EXPECT_EQ(res.json().value("detail", ""), "credential: failed the " + c.check + " check")
        << res.body;
  }
  HttpResponse list = get_with_token(authd.port(), "/webauthn/credentials", token);
  EXPECT_EQ(list.json()["passkeys"].size(), 0u) << list.body;
  SoftAuthenticator good;
  EXPECT_EQ(register_with(authd, token, good).status, 201);
}

// 16.6.2: a challenge is used once, by its own account, for its purpose.
TEST(Passkeys, Interface_16_6_2_AChallengeIsUsedOnceForItsAccountAndPurpose) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string bobs = authd.login("bob@example.com", kPassword);
  SoftAuthenticator device;

  nlohmann::json response = device.create(creation_options(authd, token), kOrigin);
  HttpResponse replay_first =
      bearer_post(authd, token, "/webauthn/register", {{"credential", response}});
  ASSERT_EQ(replay_first.status, 201) << replay_first.body;
  HttpResponse again = bearer_post(authd, token, "/webauthn/register", {{"credential", response}});
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.json().value("detail", ""), "credential: failed the challenge check");

  SoftAuthenticator other;
  nlohmann::json for_alice = other.create(creation_options(authd, token, &device), kOrigin);
  HttpResponse by_bob = bearer_post(authd, bobs, "/webauthn/register", {{"credential", for_alice}});
  EXPECT_EQ(by_bob.json().value("detail", ""), "credential: failed the challenge check")
      << by_bob.body;
  // Taken by Bob's attempt: Alice cannot use it any more either.
  EXPECT_EQ(bearer_post(authd, token, "/webauthn/register", {{"credential", for_alice}}).status,
            400);

  SoftAuthenticator third;
  nlohmann::json sign_in_challenge = request_options(authd);
  nlohmann::json as_creation = creation_options(authd, token, &device);
  as_creation["challenge"] = sign_in_challenge["challenge"];
  HttpResponse wrong_purpose = bearer_post(authd, token, "/webauthn/register",
                                           {{"credential", third.create(as_creation, kOrigin)}});
  EXPECT_EQ(wrong_purpose.json().value("detail", ""), "credential: failed the challenge check");

  nlohmann::json sign_in = {{"credential", device.get(request_options(authd), kOrigin)}};
  EXPECT_EQ(post_json(authd.port(), "/webauthn/login", sign_in.dump()).status, 200);
  EXPECT_EQ(post_json(authd.port(), "/webauthn/login", sign_in.dump()).status, 401);
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed[0]["detail"], (nlohmann::json{{"reason", "passkey"}, {"check", "challenge"}}));
}

// 16.2.2: a credential id registered already, to any account, is 409.
TEST(Passkeys, Interface_16_2_2_ACredentialIdRegisteredAlreadyIs409) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string bobs = authd.login("bob@example.com", kPassword);
  const std::string id = "the same credential id";
  SoftAuthenticator first;
  ASSERT_EQ(register_with(authd, token, first, {.new_credential_id = id}).status, 201);
  SoftAuthenticator second;
  EXPECT_EQ(register_with(authd, bobs, second, {.new_credential_id = id}).status, 409);
  // The browser would refuse (excludeCredentials); a client that does not is refused by authd.
  SoftAuthenticator third;
  nlohmann::json options = creation_options(authd, token, &first);
  options["excludeCredentials"] = nlohmann::json::array();
  nlohmann::json again = {
      {"credential", third.create(options, kOrigin, {.new_credential_id = id})}};
  EXPECT_EQ(bearer_post(authd, token, "/webauthn/register", again).status, 409);
}

// 16.3: a passkey signs in with neither e-mail nor password; the options
// name no account.
TEST(Passkeys, Interface_16_3_APasskeySignsInWithoutEmailOrPassword) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);

  nlohmann::json options = request_options(authd);
  EXPECT_EQ(options["rpId"], kRpId);
  EXPECT_EQ(options["userVerification"], "required");
  EXPECT_EQ(options["allowCredentials"], nlohmann::json::array());
  EXPECT_EQ(options["timeout"], 300000);

  HttpResponse res = sign_in_with(authd, device);
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.json()["email"], kEmail);
  std::string session = token_of(res);
  EXPECT_EQ(get_with_token(authd.port(), "/me", session).status, 200);

  HttpResponse list = get_with_token(authd.port(), "/webauthn/credentials", session);
  EXPECT_TRUE(list.json()["passkeys"][0]["lastUsedAt"].is_string()) << list.body;
  std::vector<nlohmann::json> succeeded = events_of_type(authd, "login.succeeded");
  ASSERT_FALSE(succeeded.empty());
  EXPECT_EQ(succeeded[0]["detail"]["method"], "passkey");
  EXPECT_EQ(succeeded[0]["detail"]["passkeyId"], device.last_credential_id());
  // Ed25519 passkeys and authenticators without a counter sign in too.
  SoftAuthenticator no_counter(-8, false);
  ASSERT_EQ(register_with(authd, token, no_counter, {}, {}, &device).status, 201);
  EXPECT_EQ(sign_in_with(authd, no_counter).status, 200);
  EXPECT_EQ(sign_in_with(authd, no_counter).status, 200);
}

// 16.3.2 and 13.5: with cookie sessions on, a passkey sign-in sets the
// cookie as /login does, and the cookie then serves the bearer routes.
TEST(Passkeys, Interface_16_3_2_APasskeySignInSetsTheSessionCookie) {
  AuthdProcess authd(passkey_args({"--session-cookie", "authd_session"}));
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  HttpResponse res = sign_in_with(authd, device);
  ASSERT_EQ(res.status, 200) << res.body;
  std::string cookie = res.header("set-cookie");
  ASSERT_EQ(cookie.rfind("authd_session=" + token_of(res) + ";", 0), 0u) << cookie;
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  HttpResponse me =
      send_request(authd.port(), "GET", "/me", {{"Cookie", "authd_session=" + token_of(res)}});
  EXPECT_EQ(me.status, 200) << me.body;
}

// 16.7.2: each sign-in check, failed alone, is a plain 401 whose event
// names the check.
TEST(Passkeys, Interface_16_7_2_EachFailedSignInCheckIs401AndItsEventNamesIt) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  ASSERT_EQ(sign_in_with(authd, device).status, 200);  // the counter is 1 now
  std::string bob_id =
      get_with_token(authd.port(), "/me", authd.login("bob@example.com", kPassword)).json()["id"];
  constexpr std::uint8_t kUp = 0x01, kUv = 0x04;
  std::vector<std::pair<std::string, Tamper>> cases = {
      {"credentialId", {.credential_id = std::string("no such passkey")}},
      {"userHandle", {.user_handle = bob_id}},
      {"userHandle", {.omit_user_handle = true}},
      {"clientData", {.client_data_json = std::string("{}")}},
      {"type", {.type = std::string("webauthn.create")}},
      {"challenge", {.challenge_b64url = test_support::to_base64url(std::string(32, 'x'))}},
      {"origin", {.origin = std::string("https://authd.test.evil.example")}},
      {"crossOrigin", {.cross_origin = true}},
      {"authenticatorData", {.authenticator_data_size = std::size_t{36}}},
      {"rpIdHash", {.rp_id = std::string("evil.example")}},
      {"userPresent", {.flags = kUv}},
      {"userVerified", {.flags = kUp}},
      {"signature", {.corrupt_signature = true}},
      {"signCount", {.counter = 1u}},
  };
  for (const auto& [check, tamper] : cases) {
    HttpResponse res = sign_in_with(authd, device, tamper);
    EXPECT_EQ(res.status, 401) << check << ": " << res.body;
    EXPECT_EQ(res.body, unauthorized_body());
    EXPECT_TRUE(res.header("authorization").empty());
    std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
    ASSERT_FALSE(failed.empty());
    EXPECT_EQ(failed[0]["detail"], (nlohmann::json{{"reason", "passkey"}, {"check", check}}));
  }
  EXPECT_EQ(sign_in_with(authd, device).status, 200);
}

// 16.3.2: failures count against the client (login throttle), not the
// e-mail; past the limit even a valid passkey is 429. 16.3.1: the options
// count in a counter of their own.
TEST(Passkeys, Interface_16_3_FailedSignInsAndOptionsAreThrottledPerClient) {
  AuthdProcess authd(passkey_args({"--login-client-limit", "3/15m"}));
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  // A valid assertion, kept; then three for challenges authd never issued
  // (made without asking it for options, which count apart).
  nlohmann::json valid = {{"credential", device.get(request_options(authd), kOrigin)}};
  nlohmann::json made_up = {{"challenge", test_support::to_base64url(std::string(32, 'y'))},
                            {"rpId", kRpId}};
  for (int i = 0; i < 3; ++i) {
    nlohmann::json bad = {{"credential", device.get(made_up, kOrigin)}};
    EXPECT_EQ(post_json(authd.port(), "/webauthn/login", bad.dump()).status, 401);
  }
  HttpResponse throttled = post_json(authd.port(), "/webauthn/login", valid.dump());
  EXPECT_EQ(throttled.status, 429);
  EXPECT_FALSE(throttled.header("retry-after").empty());

  AuthdProcess fresh(passkey_args({"--login-client-limit", "2/15m"}));
  EXPECT_EQ(post_json(fresh.port(), "/webauthn/login/options", "").status, 200);
  EXPECT_EQ(post_json(fresh.port(), "/webauthn/login/options", "").status, 200);
  HttpResponse third = post_json(fresh.port(), "/webauthn/login/options", "");
  EXPECT_EQ(third.status, 429);
  EXPECT_FALSE(third.header("retry-after").empty());
}

// 16.3.2: a valid passkey of a disabled account is 403.
TEST(Passkeys, Interface_16_3_2_ADisabledAccountIs403) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  ASSERT_EQ(authd.cli({"user", "disable", "--email", kEmail}), 0);
  EXPECT_EQ(sign_in_with(authd, device).status, 403);
}

// 16.6.2, on any number of instances: two sign-ins with one assertion open
// one session.
TEST(Passkeys, Interface_16_6_2_ConcurrentUsesOfOneAssertionHaveOneWinner) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  for (int round = 0; round < 5; ++round) {
    std::string body =
        nlohmann::json{{"credential", device.get(request_options(authd), kOrigin)}}.dump();
    auto a = std::async(std::launch::async,
                        [&] { return post_json(authd.port(), "/webauthn/login", body).status; });
    auto b = std::async(std::launch::async,
                        [&] { return post_json(authd.port(), "/webauthn/login", body).status; });
    std::vector<int> statuses = {a.get(), b.get()};
    std::sort(statuses.begin(), statuses.end());
    EXPECT_EQ(statuses, (std::vector<int>{200, 401}));
  }
}

// 16.4: an account with a passkey needs a second factor at password login;
// an assertion without user verification serves.
TEST(Passkeys, Interface_16_4_APasskeyIsTheSecondFactorOfAPasswordLogin) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  HttpResponse registered = register_with(authd, token, device);
  ASSERT_EQ(registered.status, 201);
  std::vector<std::string> codes = registered.json()["recoveryCodes"];

  HttpResponse missing = password_login(authd, nlohmann::json::object());
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(missing.header("authd-second-factor"), "webauthn");
  nlohmann::json bent = device.get(request_options(authd), kOrigin, {.corrupt_signature = true});
  HttpResponse wrong = password_login(authd, {{"webauthn", bent}});
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.header("authd-second-factor"), "webauthn");
  std::vector<nlohmann::json> failed = events_of_type(authd, "login.failed");
  EXPECT_EQ(failed[0]["detail"],
            (nlohmann::json{{"reason", "second_factor"}, {"check", "signature"}}));

  nlohmann::json presence_only = device.get(request_options(authd), kOrigin, {.flags = 0x01});
  HttpResponse ok = password_login(authd, {{"webauthn", presence_only}});
  ASSERT_EQ(ok.status, 200) << ok.body;
  std::vector<nlohmann::json> succeeded = events_of_type(authd, "login.succeeded");
  EXPECT_EQ(succeeded[0]["detail"]["secondFactor"], "webauthn");
  EXPECT_EQ(succeeded[0]["detail"]["method"], "password");
  EXPECT_EQ(password_login(authd, {{"recoveryCode", codes[0]}}).status, 200);

  EXPECT_EQ(password_login(authd, {{"webauthn", "not an object"}}).status, 400);
  EXPECT_EQ(password_login(authd, {{"webauthn", {{"id", "x"}}}}).status, 400);
}

// 16.5: the owner lists and removes passkeys, with the password; removing
// the last factor removes the recovery codes, and logins ask for none.
TEST(Passkeys, Interface_16_5_ListingAndRemovingOnesPasskeys) {
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  authd.add_user("bob@example.com", kPassword);
  std::string token = authd.login(kEmail, kPassword);
  std::string bobs = authd.login("bob@example.com", kPassword);
  SoftAuthenticator device;
  SoftAuthenticator bobs_device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  ASSERT_EQ(register_with(authd, bobs, bobs_device).status, 201);
  const std::string mine = "/webauthn/credentials/" + device.last_credential_id() + "/remove";
  const std::string his = "/webauthn/credentials/" + bobs_device.last_credential_id() + "/remove";

  EXPECT_EQ(get_with_token(authd.port(), "/webauthn/credentials", "authd_nonsense").status, 401);
  EXPECT_EQ(bearer_post(authd, token, his, {{"password", kPassword}}).status, 404);
  HttpResponse wrong = bearer_post(authd, token, mine, {{"password", "wrong one"}});
  EXPECT_EQ(wrong.status, 403);
  EXPECT_EQ(wrong.header_count("authd-second-factor"), 0u);
  EXPECT_EQ(bearer_post(authd, token, mine, nlohmann::json::object()).status, 400);
  // 16.4.3: the account's second factor too.
  HttpResponse no_factor = bearer_post(authd, token, mine, {{"password", kPassword}});
  EXPECT_EQ(no_factor.status, 403);
  EXPECT_EQ(no_factor.header("authd-second-factor"), "webauthn");
  HttpResponse removed = bearer_post(authd, token, mine, password_and_factor(authd, &device));
  EXPECT_EQ(removed.status, 204) << removed.body;
  EXPECT_EQ(bearer_post(authd, token, mine, {{"password", kPassword}}).status, 404);
  EXPECT_EQ(get_with_token(authd.port(), "/webauthn/credentials", token).json()["passkeys"].size(),
            0u);
  EXPECT_EQ(authd.login(kEmail, kPassword).empty(), false);  // no second factor any more
  EXPECT_EQ(authd.sql("SELECT count(*) FROM recovery_codes WHERE user_id = (SELECT id FROM users "
                      "WHERE email = '" +
                      kEmail + "')"),
            "0\n");
  EXPECT_EQ(sign_in_with(authd, device).status, 401);
  std::vector<nlohmann::json> disabled = events_of_type(authd, "mfa.disabled");
  ASSERT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled[0]["detail"]["passkeyId"], device.last_credential_id());
  std::vector<std::string> mails = authd.wait_for_mails(3);  // two added, one removed
  bool told = false;
  for (const std::string& mail : mails)
    told = told || mail.find("A passkey was removed") != std::string::npos;
  EXPECT_TRUE(told);
}

// 16.4.3: with a second factor on the account, a stolen token and the
// password cannot add a passkey (nor remove one) without that factor; a
// TOTP code serves as well as a passkey. 16.2.1: at most 20 passkeys.
TEST(Passkeys, Interface_16_4_3_ChangingPasskeysNeedsTheAccountsSecondFactor) {
  AuthdProcess authd(passkey_args());
  Enrolled enrolled = enrolled_account(authd);  // a confirmed TOTP
  const std::string& token = enrolled.token;
  HttpResponse without =
      bearer_post(authd, token, "/webauthn/register/options", {{"password", kPassword}});
  EXPECT_EQ(without.status, 403);
  EXPECT_EQ(without.header("authd-second-factor"), "totp");
  HttpResponse wrong_password =
      bearer_post(authd, token, "/webauthn/register/options", {{"password", "wrong one"}});
  EXPECT_EQ(wrong_password.status, 403);
  EXPECT_EQ(wrong_password.header_count("authd-second-factor"), 0u);
  HttpResponse with_code =
      bearer_post(authd, token, "/webauthn/register/options",
                  {{"password", kPassword}, {"otp", code_in_steps(enrolled.secret, 0)}});
  ASSERT_EQ(with_code.status, 200) << with_code.body;
  SoftAuthenticator device;
  nlohmann::json made = {{"credential", device.create(with_code.json()["publicKey"], kOrigin)}};
  HttpResponse registered = bearer_post(authd, token, "/webauthn/register", made);
  ASSERT_EQ(registered.status, 201) << registered.body;
  EXPECT_FALSE(registered.json().contains("recoveryCodes"));  // the TOTP's stay
  HttpResponse both =
      bearer_post(authd, token, "/webauthn/register/options", {{"password", kPassword}});
  EXPECT_EQ(both.header("authd-second-factor"), "totp, webauthn");
  EXPECT_EQ(password_login(authd, nlohmann::json::object()).header("authd-second-factor"),
            "totp, webauthn");
  // A recovery code serves too, once.
  nlohmann::json by_code = {{"password", kPassword}, {"recoveryCode", enrolled.recovery_codes[0]}};
  EXPECT_EQ(bearer_post(authd, token, "/webauthn/register/options", by_code).status, 200);
  EXPECT_EQ(bearer_post(authd, token, "/webauthn/register/options", by_code).status, 403);

  for (int i = 1; i < 20; ++i) {
    SoftAuthenticator another;
    ASSERT_EQ(register_with(authd, token, another, {}, {}, &device).status, 201) << i;
  }
  HttpResponse full =
      bearer_post(authd, token, "/webauthn/register/options", password_and_factor(authd, &device));
  EXPECT_EQ(full.status, 409);
  EXPECT_EQ(get_with_token(authd.port(), "/webauthn/credentials", token).json()["passkeys"].size(),
            20u);
}

// 16.6.3 and 12.4: the admin view lists passkeys in "mfa"; an operator's
// reset removes them with the other factors; removing TOTP keeps the
// codes while a passkey remains (12.1.3).
TEST(Passkeys, Interface_16_6_3_TheAdminViewListsPasskeysAndAResetRemovesThem) {
  AuthdProcess authd(passkey_args());
  std::string key = admin::create_key(authd, "ops");
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  std::string id = get_with_token(authd.port(), "/me", token).json()["id"];
  EXPECT_EQ(admin::get_user(authd, key, id)["mfa"], nlohmann::json::array({"webauthn"}));

  ASSERT_EQ(authd.cli({"user", "mfa-reset", "--email", kEmail}), 0);
  EXPECT_EQ(admin::get_user(authd, key, id)["mfa"], nlohmann::json::array());
  EXPECT_EQ(sign_in_with(authd, device).status, 401);
  EXPECT_FALSE(authd.login(kEmail, kPassword).empty());
  std::vector<nlohmann::json> disabled = events_of_type(authd, "mfa.disabled");
  ASSERT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled[0]["detail"], (nlohmann::json{{"factor", "webauthn"}, {"passkeys", 1}}));
}

// 16.1: a wrong RP ID or origin refuses the start; a public URL that names
// no usable one leaves passkeys off (503), and says so in the log.
TEST(Passkeys, Interface_16_1_TheRelyingPartyIsCheckedAtStart) {
  AuthdProcess authd(fast_hashing());  // public URL http://authd.test: no passkeys
  EXPECT_EQ(post_json(authd.port(), "/webauthn/login/options", "").status, 503);
  EXPECT_NE(authd.log_text().find("passkeys_unavailable"), std::string::npos);

  auto start = [&](std::vector<std::string> options) {
    std::vector<std::string> args = {"serve",    "--database",  authd.database_url(),
                                     "--listen", "127.0.0.1:0", "--admin-listen",
                                     "off"};
    args.insert(args.end(), options.begin(), options.end());
    return run_authd(args);
  };
  CommandResult ip = start({"--webauthn-rp-id", "192.0.2.1"});
  EXPECT_EQ(ip.exit_code, 2) << ip.output;
  EXPECT_NE(ip.output.find("--webauthn-rp-id"), std::string::npos) << ip.output;
  CommandResult elsewhere =
      start({"--webauthn-rp-id", "authd.test", "--webauthn-origins", "https://other.example"});
  EXPECT_EQ(elsewhere.exit_code, 2) << elsewhere.output;
  EXPECT_NE(elsewhere.output.find("--webauthn-origins"), std::string::npos) << elsewhere.output;
  CommandResult plain_http =
      start({"--webauthn-rp-id", "authd.test", "--webauthn-origins", "http://authd.test"});
  EXPECT_EQ(plain_http.exit_code, 2) << plain_http.output;
}

// 8.2: a sign-in learns its account from the passkey, and locks the
// account's row before it writes the passkey's (its counter): an
// administrator's second-factor reset, or an erasure, holds that row while
// it deletes the account's passkeys, and the two must not wait for each
// other. The sign-in then finds its passkey gone: 401.
TEST(Passkeys, Interface_8_2_ASignInWaitsForItsAccountBeforeWritingItsPasskey) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(passkey_args());
  authd.add_user(kEmail, kPassword);
  std::string token = authd.login(kEmail, kPassword);
  SoftAuthenticator device;
  ASSERT_EQ(register_with(authd, token, device).status, 201);
  std::string user_id = get_with_token(authd.port(), "/me", token).json()["id"];
  HttpResponse answer = answer_beside_an_account_change(
      authd, user_id, "passkeys", [&] { return sign_in_with(authd, device); });
  EXPECT_EQ(answer.status, 401) << answer.body;
}

}  // namespace
}  // namespace authd::test
