// Helpers of the second factor's integration tests (interface.md 12): the
// routes with a bearer token, codes computed by an independent RFC 6238
// implementation (oathtool, Debian's oathtool package), and the QR code
// read back by a real decoder (zbarimg, after rsvg-convert rasterises the
// SVG).
#pragma once

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "contract_support.hpp"
#include "harness.hpp"
#include "run_authd.hpp"

namespace authd::test {

// `authd mfa reseal` (interface.md 12.2.3) with `new_key` as the current
// key and `old_key` as the previous one ("": none); checks its exit status
// and returns what it printed.
inline std::string resealed(const AuthdProcess& authd, const std::string& new_key,
                            const std::string& old_key, int exit_status) {
  std::vector<std::string> args = {"mfa", "reseal", "--secret-key-file", new_key};
  if (!old_key.empty()) args.insert(args.end(), {"--previous-secret-key-file", old_key});
  std::string out;
  EXPECT_EQ(authd.cli(args, "", &out), exit_status) << out;
  return out;
}

inline HttpResponse mfa_call(const AuthdProcess& authd, const std::string& token,
                             const std::string& route, const nlohmann::json& body) {
  return post_json(authd.port(), route, body.dump(), {{"Authorization", "Bearer " + token}});
}

// The TOTP code of `base32_secret` at `unix_seconds` (now when 0), by oathtool.
inline std::string oathtool_code(const std::string& base32_secret, long long unix_seconds = 0) {
  std::string command = "oathtool --totp --base32 " + shell_quote(base32_secret);
  if (unix_seconds != 0) command += " --now " + shell_quote("@" + std::to_string(unix_seconds));
  CommandResult result = run_shell(command + " 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return without_trailing_newlines(result.output);
}

// The code of the time step `steps` away from now (each step 30 s). Near the
// end of a step it first waits for the next one: a code for step -1 computed
// in the last instant of a step would reach the server as step -2, outside
// its window of one step each side, and a test would fail for the clock's
// sake (seen once in CI). A code is sent well within the 3 s kept clear.
inline std::string code_in_steps(const std::string& base32_secret, int steps) {
  using std::chrono::system_clock;
  constexpr long long kStep = 30;
  constexpr long long kClearOfTheBoundary = 3;
  auto seconds_now = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(system_clock::now().time_since_epoch())
        .count();
  };
  long long now = seconds_now();
  if (now % kStep >= kStep - kClearOfTheBoundary) {
    std::this_thread::sleep_until(
        system_clock::time_point(std::chrono::seconds((now / kStep + 1) * kStep)));
    now = seconds_now();
  }
  return oathtool_code(base32_secret, now + kStep * steps);
}

// What a QR scanner reads in the SVG: rasterised by rsvg-convert, decoded by
// zbarimg. Empty when nothing decodes.
inline std::string decoded_qr(const AuthdProcess& authd, const std::string& svg) {
  std::string svg_path = authd.directory() + "/qr.svg";
  std::string png_path = authd.directory() + "/qr.png";
  std::ofstream(svg_path) << svg;
  CommandResult result =
      run_shell("rsvg-convert --zoom 4 -o " + shell_quote(png_path) + " " + shell_quote(svg_path) +
                " && zbarimg --quiet --raw " + shell_quote(png_path) + " 2>" +
                shell_quote(authd.directory() + "/zbarimg.err"));
  // zbarimg's standard error has notices of its own (no D-Bus here).
  if (result.exit_code != 0) return "";
  return without_trailing_newlines(result.output);
}

// POST /mfa/totp with the password, checked 200; its body.
inline nlohmann::json begin_enrolment(const AuthdProcess& authd, const std::string& token,
                                      const std::string& password = kPassword) {
  HttpResponse res = mfa_call(authd, token, "/mfa/totp", {{"password", password}});
  EXPECT_EQ(res.status, 200) << res.body;
  return res.status == 200 ? res.json() : nlohmann::json::object();
}

struct Enrolled {
  std::string token;   // a session opened before the factor
  std::string secret;  // base32
  std::vector<std::string> recovery_codes;
  std::string confirmation_code;  // the code of the step the factor was confirmed with
};

// The account kEmail with a confirmed TOTP factor, confirmed with the code
// of the step before the current one: the current step and the next are
// still free for two logins (a step is accepted once, interface.md 12.3).
inline Enrolled enrolled_account(const AuthdProcess& authd) {
  Enrolled enrolled;
  authd.add_user(kEmail, kPassword);
  enrolled.token = authd.login(kEmail, kPassword);
  nlohmann::json started = begin_enrolment(authd, enrolled.token);
  enrolled.secret = started.value("secret", "");
  enrolled.confirmation_code = code_in_steps(enrolled.secret, -1);
  HttpResponse confirmed =
      mfa_call(authd, enrolled.token, "/mfa/totp/confirm", {{"code", enrolled.confirmation_code}});
  EXPECT_EQ(confirmed.status, 200) << confirmed.body;
  if (confirmed.status == 200)
    enrolled.recovery_codes = confirmed.json()["recoveryCodes"].get<std::vector<std::string>>();
  return enrolled;
}

inline HttpResponse login_with(const AuthdProcess& authd, nlohmann::json extra,
                               const std::string& password = kPassword) {
  extra["email"] = kEmail;
  extra["password"] = password;
  return post_json(authd.port(), "/login", extra.dump());
}

}  // namespace authd::test
