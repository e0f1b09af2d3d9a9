// What the sign-up tests share (interface.md 11.4-11.5): the server's
// arguments, the requests, and the token of a mailed link.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace authd::test {

inline const std::string kNewcomer = "newcomer@example.com";
inline const std::string kChosenPassword = "a sign-up passphrase";

inline std::vector<std::string> signup_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--signup", "open"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

inline std::string signup_body(const std::string& email, const std::string& password,
                               const std::optional<std::string>& display_name = std::nullopt) {
  nlohmann::json body = {{"email", email}, {"password", password}};
  if (display_name) body["displayName"] = *display_name;
  return body.dump();
}

inline HttpResponse signup(const AuthdProcess& authd, const std::string& email,
                           const std::string& password = kChosenPassword,
                           const std::optional<std::string>& display_name = std::nullopt) {
  return post_json(authd.port(), "/signup", signup_body(email, password, display_name));
}

// POST /verify with the token of a mail and the password chosen at its
// sign-up (interface.md 11.5).
inline HttpResponse verify(unsigned short port, const std::string& token,
                           const std::string& password = kChosenPassword) {
  return post_json(port, "/verify",
                   nlohmann::json{{"token", token}, {"password", password}}.dump());
}

// The verification token in a mail's link ("" when there is none).
inline std::string verify_token_in(const std::string& mail) {
  std::smatch found;
  static const std::regex link(R"(http://authd\.test/verify#token=([A-Za-z0-9_-]+))");
  if (!std::regex_search(mail, found, link)) return "";
  return found[1];
}

inline std::vector<std::string> rows(const AuthdProcess& authd, const std::string& query) {
  return lines(authd.sql(query));
}

// Waits until the outbox has nothing left to send.
inline void wait_for_outbox(const AuthdProcess& authd) {
  ASSERT_TRUE(eventually([&] {
    return rows(authd, "select count(*) from outbox where sent_at is null") ==
           std::vector<std::string>{"0"};
  })) << authd.log_text();
}

// Signs up `email` and returns the token of the mail that follows.
inline std::string mailed_signup_token(const AuthdProcess& authd, const std::string& email,
                                       const std::string& password = kChosenPassword) {
  std::size_t before = authd.mails().size();
  EXPECT_EQ(signup(authd, email, password).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(before + 1);
  EXPECT_EQ(mails.size(), before + 1) << authd.log_text();
  return mails.empty() ? "" : verify_token_in(mails.back());
}

}  // namespace authd::test
