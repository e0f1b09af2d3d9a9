// Helpers of the passkeys' integration tests (interface.md 16): a server
// whose relying party is authd.test, the routes with a bearer token, and
// responses made by tests/support/soft_authenticator (OpenSSL keys, libcbor
// encoding: an implementation of its own, not authd's).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "contract_support.hpp"
#include "harness.hpp"
#include "run_authd.hpp"
#include "support/soft_authenticator.hpp"

namespace authd::test {

using test_support::SoftAuthenticator;
using test_support::Tamper;

inline const std::string kRpId = "authd.test";
inline const std::string kOrigin = "https://authd.test";

// fast_hashing() and the relying party authd.test, on https://authd.test.
inline std::vector<std::string> passkey_args(std::vector<std::string> more = {}) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--webauthn-rp-id", kRpId, "--webauthn-origins", kOrigin});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

inline HttpResponse bearer_post(const AuthdProcess& authd, const std::string& token,
                                const std::string& route, const nlohmann::json& body) {
  return post_json(authd.port(), route, body.dump(), {{"Authorization", "Bearer " + token}});
}

// POST /webauthn/login/options, checked 200: the request options.
inline nlohmann::json request_options(const AuthdProcess& authd) {
  HttpResponse res = post_json(authd.port(), "/webauthn/login/options", "");
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json()["publicKey"] : nlohmann::json::object();
}

// {"password"}, and, with `proof` (a device holding one of the account's
// passkeys), that passkey's assertion as the second factor (16.4.3).
inline nlohmann::json password_and_factor(const AuthdProcess& authd, SoftAuthenticator* proof,
                                          const std::string& password = kPassword) {
  nlohmann::json body = {{"password", password}};
  if (proof != nullptr) body["webauthn"] = proof->get(request_options(authd), kOrigin);
  return body;
}

// POST /webauthn/register/options, checked 200: the creation options (the
// "publicKey" object).
inline nlohmann::json creation_options(const AuthdProcess& authd, const std::string& token,
                                       SoftAuthenticator* proof = nullptr) {
  HttpResponse res =
      bearer_post(authd, token, "/webauthn/register/options", password_and_factor(authd, proof));
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json()["publicKey"] : nlohmann::json::object();
}

// Options, a response from `device` (bent by `tamper`), POST /webauthn/register.
inline HttpResponse register_with(const AuthdProcess& authd, const std::string& token,
                                  SoftAuthenticator& device, const Tamper& tamper = {},
                                  nlohmann::json extra = nlohmann::json::object(),
                                  SoftAuthenticator* proof = nullptr) {
  extra["credential"] = device.create(creation_options(authd, token, proof), kOrigin, tamper);
  return bearer_post(authd, token, "/webauthn/register", extra);
}

// A sign-in with `device` (bent by `tamper`): POST /webauthn/login.
inline HttpResponse sign_in_with(const AuthdProcess& authd, SoftAuthenticator& device,
                                 const Tamper& tamper = {}) {
  nlohmann::json body = {{"credential", device.get(request_options(authd), kOrigin, tamper)}};
  return post_json(authd.port(), "/webauthn/login", body.dump());
}

// A password login of kEmail with `extra` members in its body.
inline HttpResponse password_login(const AuthdProcess& authd, nlohmann::json extra) {
  extra["email"] = kEmail;
  extra["password"] = kPassword;
  return post_json(authd.port(), "/login", extra.dump());
}

// The events of `type`, newest first, as `authd events` prints them.
inline std::vector<nlohmann::json> events_of_type(const AuthdProcess& authd,
                                                  const std::string& type) {
  std::string out;
  EXPECT_EQ(authd.cli({"events", "--type", type}, "", &out), 0);
  std::vector<nlohmann::json> events;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) events.push_back(nlohmann::json::parse(line));
  return events;
}

}  // namespace authd::test
