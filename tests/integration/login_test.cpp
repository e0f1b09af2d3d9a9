// interface.md 3.1, 3.2 (input rules), 4.1, 4.3 (passwords at rest, the
// hashing pool), 5.1, 5.2, 5.4 (tokens) and 6 /login, over real HTTP.
#include <algorithm>
#include <latch>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

// interface.md 3.1: e-mail rules (WHATWG, 1 to 254 characters, no trimming,
// no quoted local part, no IP literal, ASCII only) on /login and /forgot.
TEST(Login, Interface_3_1_EmailRulesOnLoginAndForgot) {
  AuthdProcess authd(fast_hashing());
  const std::vector<std::string> invalid = {
      "",
      " alice@example.com",
      "alice@example.com ",
      "\talice@example.com",
      "\"alice\"@example.com",
      "alice@[127.0.0.1]",
      "al\xC3\xAF"
      "ce@example.com",            // non-ASCII local part
      "alice@ex\xC3\xA4mple.com",  // non-ASCII domain
      "alice",
      "alice@",
      "@example.com",
      "alice@@example.com",
      "alice@-example.com",
      "alice@example-.com",
      "alice@example..com",
      "alice @example.com",
      std::string(243, 'a') + "@example.com",  // 255 characters
  };
  for (const std::string& email : invalid) {
    HttpResponse login = post_json(authd.port(), "/login", login_body(email, kPassword));
    EXPECT_EQ(login.status, 400) << "/login " << nlohmann::json(email);
    EXPECT_EQ(login.json()["code"], 400);
    HttpResponse forgot = post_json(authd.port(), "/forgot", forgot_body(email));
    EXPECT_EQ(forgot.status, 400) << "/forgot " << nlohmann::json(email);
  }

  const std::vector<std::string> valid = {
      "a@b",
      "alice@example.com",
      "Alice.O'Hara+tag@Sub.Example-Domain.COM",
      "!#$%&'*+/=?^_`{|}~-@example.com",
      std::string(242, 'a') + "@example.com",  // 254 characters
  };
  for (const std::string& email : valid) {
    HttpResponse login = post_json(authd.port(), "/login", login_body(email, kPassword));
    EXPECT_EQ(login.status, 401) << "/login " << email << ": " << login.body;
    HttpResponse forgot = post_json(authd.port(), "/forgot", forgot_body(email));
    EXPECT_EQ(forgot.status, 200) << "/forgot " << email << ": " << forgot.body;
  }
}

// interface.md 3.2: a login password is 1 to 255 code points, any content.
TEST(Login, Interface_3_2_LoginPasswordLengthInCodePoints) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, emoji(255));

  // 255 emoji (1020 bytes) is a valid password, and it is this user's.
  HttpResponse exact = post_json(authd.port(), "/login", login_body(kEmail, emoji(255)));
  EXPECT_EQ(exact.status, 200) << exact.body;
  HttpResponse wrong = post_json(authd.port(), "/login", login_body(kEmail, emoji(254) + "x"));
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  HttpResponse ascii =
      post_json(authd.port(), "/login", login_body("bob@example.com", std::string(255, 'x')));
  EXPECT_EQ(ascii.status, 401) << ascii.body;

  for (const std::string& password : {emoji(256), std::string(256, 'x'), std::string()}) {
    HttpResponse res = post_json(authd.port(), "/login", login_body(kEmail, password));
    EXPECT_EQ(res.status, 400) << password.size() << " bytes";
  }
  // Never trimmed: surrounding spaces make another password.
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, " " + emoji(254))).status, 401);
}

// interface.md 4.1: argon2id in PHC format with at least OWASP's defaults.
TEST(Login, Interface_4_1_StoredHashIsArgon2idWithOwaspDefaults) {
  AuthdProcess authd;  // default parameters
  authd.add_user(kEmail, kPassword);
  std::string hash = without_trailing_newlines(authd.sql("select password_hash from users"));
  EXPECT_TRUE(std::regex_match(
      hash, std::regex(R"(^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$)")))
      << hash;
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200) << login.body;
  // A login with up-to-date parameters keeps the hash.
  EXPECT_EQ(without_trailing_newlines(authd.sql("select password_hash from users")), hash);
}

// interface.md 4.3: when the hashing pool and its queue are full, logins get
// 503 with Retry-After (never 500), and the server keeps serving.
TEST(Login, Interface_4_3_And_6_Login_4_FullHashingQueueGives503WithRetryAfterAndCountsNothing) {
  AuthdProcess authd(
      {"--hash-workers", "1", "--hash-queue", "0", "--login-client-limit", "10000/15m"});
  constexpr int kClients = 24;
  std::vector<HttpResponse> all;
  bool saw_503 = false;
  for (int round = 0; round < 5 && !saw_503; ++round) {
    std::vector<HttpResponse> responses(kClients);
    std::latch ready(kClients);
    std::vector<std::thread> threads;
    for (int i = 0; i < kClients; ++i) {
      threads.emplace_back([&, i] {
        HttpConnection connection(authd.port());
        std::string body = login_body(
            "user" + std::to_string(round) + "-" + std::to_string(i) + "@example.com", kPassword);
        ready.arrive_and_wait();
        responses[static_cast<std::size_t>(i)] =
            connection.request("POST", "/login", {{"Content-Type", "application/json"}}, body);
      });
    }
    for (auto& t : threads) t.join();
    for (const HttpResponse& res : responses) {
      if (res.status == 503) saw_503 = true;
      all.push_back(res);
    }
  }
  EXPECT_TRUE(saw_503) << "no 503 in 5 rounds of " << kClients << " concurrent logins";
  int failures = 0;
  for (const HttpResponse& res : all) {
    EXPECT_TRUE(res.status == 401 || res.status == 503) << res.status << " " << res.body;
    if (res.status == 401) ++failures;
    if (res.status == 503) {
      EXPECT_EQ(res.body, R"({"code":503,"message":"Service Unavailable"})");
      expect_retry_after(res, 3600);
    }
  }
  // interface.md 6 /login 4: a 503 is not a failed attempt. Each 401 left
  // its two throttling events (its e-mail's and its client's); no 503 did.
  EXPECT_EQ(std::stoi(authd.sql("select count(*) from throttle_events")), 2 * failures);
  // The pool recovers: a login goes through once the burst is over.
  authd.add_user(kEmail, kPassword);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 5.1: an opaque token with a recognisable prefix and at least
// 256 bits; the database stores only its SHA-256 digest, never the token.
TEST(Login, Interface_5_1_TokenFormatAndOnlyItsDigestAtRest) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  std::string first = authd.login(kEmail, kPassword);
  std::string second = authd.login(kEmail, kPassword);
  ASSERT_TRUE(matches(first, token_pattern())) << first;
  ASSERT_TRUE(matches(second, token_pattern())) << second;
  EXPECT_NE(first, second);
  EXPECT_EQ(first.substr(0, first.find('_')), second.substr(0, second.find('_')))
      << "the prefix is fixed";

  std::vector<std::string> digests = lines(authd.sql("select hex(token_digest) from sessions"));
  std::sort(digests.begin(), digests.end());
  std::vector<std::string> expected = {sha256_hex(first), sha256_hex(second)};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(digests, expected);

  std::string at_rest = stored_bytes(authd);
  for (const std::string& token : {first, second}) {
    EXPECT_EQ(at_rest.find(token), std::string::npos);
    EXPECT_EQ(at_rest.find(token.substr(token.find('_') + 1)), std::string::npos);
  }
  // Nor in the server's log.
  std::string log = authd.log_text();
  EXPECT_EQ(log.find(first.substr(first.find('_') + 1)), std::string::npos);
  EXPECT_EQ(log.find(kPassword), std::string::npos);
}

// interface.md 5.2: the token travels in the login response's
// Authorization header; the body is a plain User without it.
TEST(Login, Interface_5_2_TokenInAuthorizationHeaderNotInBody) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  EXPECT_EQ(login.header_count("Authorization"), 1u);
  std::string value = login.header("Authorization");
  ASSERT_EQ(value.rfind("Bearer ", 0), 0u) << value;
  std::string token = value.substr(7);
  EXPECT_TRUE(matches(token, token_pattern())) << token;
  EXPECT_EQ(login.body.find(token), std::string::npos);
  EXPECT_EQ(login.body.find(token.substr(token.find('_') + 1)), std::string::npos);
  expect_full_user(login.json());
  EXPECT_EQ(get_with_token(authd.port(), "/me", token).status, 200);
}

// interface.md 5.4: one session per login, several at once.
TEST(Login, Interface_5_4_SeveralSessionsPerUser) {
  AuthdProcess authd(fast_hashing());
  auto [first, second] = user_with_two_sessions(authd);
  ASSERT_FALSE(first.empty() || second.empty());
  EXPECT_EQ(get_with_token(authd.port(), "/me", first).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", second).status, 200);
  EXPECT_EQ(post_with_token(authd.port(), "/logout", first).status, 200);
  EXPECT_EQ(get_with_token(authd.port(), "/me", first).status, 401);
  EXPECT_EQ(get_with_token(authd.port(), "/me", second).status, 200);
}

// interface.md 6 /login 1: invalid requests get 400 with the Error shape.
TEST(Login, Interface_6_Login_1_InvalidRequestIs400) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  const std::vector<std::string> bodies = {
      R"({"password":"correct horse battery staple"})",
      R"({"email":"alice@example.com"})",
      R"({})",
      R"({"email":1,"password":"x"})",
      R"({"email":null,"password":"x"})",
      R"({"email":["alice@example.com"],"password":"x"})",
      R"({"email":"alice@example.com","password":12345678})",
      R"({"email":"alice@example.com","password":null})",
      R"({"email":"alice@example.com","password":{}})",
      R"({"email":"","password":"x"})",
      R"({"email":"alice@example.com","password":""})",
      R"(["alice@example.com","x"])",
      R"({"email":"alice@example.com","password":"a","password":"b"})",
      "not json",
  };
  for (const std::string& body : bodies) {
    HttpResponse res = post_json(authd.port(), "/login", body);
    EXPECT_EQ(res.status, 400) << body;
    nlohmann::json error = res.json();
    EXPECT_EQ(error["code"], 400) << body;
    EXPECT_EQ(error["message"], "Bad Request") << body;
    EXPECT_TRUE(res.header("Authorization").empty());
  }
  // Unknown members are ignored.
  HttpResponse extra = post_json(
      authd.port(), "/login",
      R"({"email":"alice@example.com","password":"correct horse battery staple","x":[1]})");
  EXPECT_EQ(extra.status, 200) << extra.body;
}

// interface.md 6 /login 2: unknown e-mail and wrong password are the same
// 401, byte for byte.
TEST(Login, Interface_6_Login_2_UnknownEmailAndWrongPasswordAreTheSame401) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  HttpResponse unknown =
      post_json(authd.port(), "/login", login_body("nobody@example.com", kPassword));
  HttpResponse wrong = post_json(authd.port(), "/login", login_body(kEmail, "wrong password"));
  ASSERT_EQ(unknown.status, 401);
  ASSERT_EQ(wrong.status, 401);
  EXPECT_EQ(unknown.body, wrong.body);
  EXPECT_EQ(unknown.body, unauthorized_body());
  EXPECT_EQ(unknown.header("Content-Type"), wrong.header("Content-Type"));
  EXPECT_EQ(unknown.header("WWW-Authenticate"), wrong.header("WWW-Authenticate"));
  EXPECT_TRUE(unknown.header("Authorization").empty());
  EXPECT_TRUE(wrong.header("Authorization").empty());
}

// interface.md 6 /login 3: right password, disabled account: 403; a wrong
// password on a disabled account stays a 401 (nothing is revealed).
TEST(Login, Interface_6_Login_3_DisabledAccountIs403OnlyWithTheRightPassword) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  cli_json(authd, {"user", "disable", "--email", kEmail});
  HttpResponse right = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  EXPECT_EQ(right.status, 403);
  EXPECT_EQ(right.body, R"({"code":403,"message":"Forbidden"})");
  EXPECT_TRUE(right.header("Authorization").empty());
  HttpResponse wrong = post_json(authd.port(), "/login", login_body(kEmail, "wrong password"));
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.body, unauthorized_body());
  EXPECT_EQ(lines(authd.sql("select count(*) from sessions")), std::vector<std::string>{"0"});
}

// interface.md 6 /login 4: after 10 failures for one e-mail, the next
// attempt gets 429 with Retry-After, even with the right password, and for
// any spelling of the address.
TEST(Login, Interface_6_Login_4_TenFailuresPerEmailThenThrottled) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401)
        << "attempt " << i + 1;
  }
  HttpResponse blocked = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  EXPECT_EQ(blocked.status, 429) << blocked.body;
  EXPECT_EQ(blocked.body, R"({"code":429,"message":"Too Many Requests"})");
  expect_retry_after(blocked, 900);
  EXPECT_TRUE(blocked.header("Authorization").empty());
  HttpResponse upper =
      post_json(authd.port(), "/login", login_body("ALICE@example.com", kPassword));
  EXPECT_EQ(upper.status, 429);
  // Another e-mail from the same client is not affected.
  authd.add_user("bob@example.com", kPassword);
  EXPECT_EQ(post_json(authd.port(), "/login", login_body("bob@example.com", kPassword)).status,
            200);
}

// interface.md 6 /login 4 (and 1.10): requests answered 400 (or 415) never
// reach the throttle and do not count.
TEST(Login, Interface_6_Login_4_BadRequestsDoNotCount) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 12; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, std::string(256, 'x'))).status,
              400);
    ASSERT_EQ(send_request(authd.port(), "POST", "/login", {{"Content-Type", "text/plain"}},
                           login_body(kEmail, "wrong password"))
                  .status,
              415);
  }
  for (int i = 0; i < 9; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  }
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 6 /login 4: a success clears the e-mail's count.
TEST(Login, Interface_6_Login_4_SuccessClearsTheCount) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 9; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401);
  }
  ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
  for (int i = 0; i < 9; ++i) {
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(kEmail, "wrong password")).status, 401)
        << "attempt " << i + 1 << " after the success";
  }
  EXPECT_EQ(post_json(authd.port(), "/login", login_body(kEmail, kPassword)).status, 200);
}

// interface.md 6 /login 4: the per-client limit counts failures across
// e-mails; throttled requests are not counted (the 429 repeats, no more).
TEST(Login, Interface_6_Login_4_PerClientLimitAcrossEmails) {
  AuthdProcess authd([] {
    std::vector<std::string> args = fast_hashing();
    args.insert(args.end(), {"--login-client-limit", "3/15m"});
    return args;
  }());
  authd.add_user(kEmail, kPassword);
  for (int i = 0; i < 3; ++i) {
    std::string email = "guess" + std::to_string(i) + "@example.com";
    ASSERT_EQ(post_json(authd.port(), "/login", login_body(email, "wrong password")).status, 401);
  }
  HttpResponse blocked =
      post_json(authd.port(), "/login", login_body("other@example.com", "wrong password"));
  EXPECT_EQ(blocked.status, 429);
  expect_retry_after(blocked, 900);
  HttpResponse right = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  EXPECT_EQ(right.status, 429);
  expect_retry_after(right, 900);
  // Only 401s were stored as events: three for this client.
  EXPECT_EQ(
      lines(authd.sql("select count(*) from throttle_events where key like 'login:client:%'")),
      std::vector<std::string>{"3"});
}

// interface.md 6 /login 5: success is 200, the full User, the token header.
TEST(Login, Interface_6_Login_5_SuccessIsUserAndToken) {
  AuthdProcess authd(fast_hashing());
  authd.add_user(kEmail, kPassword);
  HttpResponse login = post_json(authd.port(), "/login", login_body(kEmail, kPassword));
  ASSERT_EQ(login.status, 200);
  EXPECT_EQ(login.header("Content-Type").rfind("application/json", 0), 0u);
  EXPECT_EQ(login.header("Cache-Control"), "no-store");
  expect_full_user(login.json());
  EXPECT_EQ(login.json()["email"], kEmail);
  EXPECT_TRUE(matches(token_of(login), token_pattern()));
}

}  // namespace
}  // namespace authd::test
