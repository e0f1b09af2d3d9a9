// Timing side channels (decisions.md 6 /login 2 and 6 /forgot 2; issue
// "Hardening" item 7): from the response time, a client cannot tell an
// unknown e-mail from a wrong password on /login, nor an existing account
// from an unknown one on /forgot.
//
// Statistical, and built not to flake: the real default argon2id cost (so
// that skipping the hash would show as a gap of the whole hash), samples of
// the cases interleaved round by round in a rotating order (so that drift
// and noise of a shared machine hit every case alike), warm-up rounds
// discarded, medians compared, and a generous bound: the medians may differ
// by half the larger one plus 2 ms. A server that skipped the dummy hash
// (a factor of ten or more) or sent the reset mail inside /forgot (an fsync
// and a file write, or an SMTP round trip) fails it; noise does not.
#include <algorithm>
#include <array>
#include <chrono>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Time of one request on its own keep-alive connection, in milliseconds;
// the status must be `expected` (else the comparison would be meaningless).
double timed_post(HttpConnection& connection, const std::string& target, const std::string& body,
                  int expected) {
  auto started = Clock::now();
  HttpResponse res =
      connection.request("POST", target, {{"Content-Type", "application/json"}}, body);
  auto elapsed = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  EXPECT_EQ(res.status, expected) << target << " " << res.body;
  return elapsed;
}

void expect_indistinguishable(const std::string& what, double a, double b) {
  double bound = 0.5 * std::max(a, b) + 2.0;
  EXPECT_LE(std::abs(a - b), bound) << what << ": medians " << a << " ms and " << b << " ms";
}

// 6 /login 2 and 6 /forgot 2, in one run over four interleaved cases.
TEST(Timing, Decisions_6_Login_2_And_Forgot_2_OutcomesCannotBeToldApartByTime) {
  // Default argon2id parameters; throttling out of the way of 100+ requests,
  // the reset-mail limits included: otherwise only the first /forgot of the
  // existing address would enqueue a mail, and every later sample would
  // compare two throttled no-ops (checked at the end: one mail each).
  AuthdProcess authd({"--login-email-limit", "1000000/1m", "--login-client-limit", "1000000/1m",
                      "--forgot-client-limit", "1000000/1m", "--reset-mail-limit-short",
                      "1000000/1m", "--reset-mail-limit-long", "1000000/1h"});
  authd.add_user(kEmail, kPassword);  // hashed with the same default cost

  const std::string unknown_login = login_body("nobody@example.com", "a wrong password");
  const std::string wrong_password = login_body(kEmail, "a wrong password");
  const std::string forgot_existing = forgot_body(kEmail);
  const std::string forgot_unknown = forgot_body("nobody@example.com");

  // One connection per case: connection set-up is no part of any sample.
  std::array<std::unique_ptr<HttpConnection>, 4> connections;
  for (auto& c : connections) c = std::make_unique<HttpConnection>(authd.port());
  std::array<std::vector<double>, 4> samples;
  auto run_case = [&](int which) {
    switch (which) {
      case 0:
        return timed_post(*connections[0], "/login", unknown_login, 401);
      case 1:
        return timed_post(*connections[1], "/login", wrong_password, 401);
      case 2:
        return timed_post(*connections[2], "/forgot", forgot_existing, 200);
      default:
        return timed_post(*connections[3], "/forgot", forgot_unknown, 200);
    }
  };

  constexpr int kWarmUp = 3;
  constexpr int kRounds = 41;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    for (int i = 0; i < 4; ++i) {
      int which = (round + i) % 4;  // rotating order
      double ms = run_case(which);
      if (round >= kWarmUp) samples[static_cast<std::size_t>(which)].push_back(ms);
    }
  }

  // Every /forgot of the existing address really enqueued its mail (sent
  // after a random delay of up to 2 s, hence the bounded wait); nothing
  // went to the unknown one.
  const std::size_t forgot_existing_sent = kWarmUp + kRounds;
  std::vector<std::string> mails = authd.wait_for_mails(forgot_existing_sent);
  EXPECT_EQ(mails.size(), forgot_existing_sent);
  for (const std::string& mail : mails)
    EXPECT_EQ(mail.find("nobody@example.com"), std::string::npos);

  double login_unknown = median(samples[0]);
  double login_wrong = median(samples[1]);
  double forgot_known = median(samples[2]);
  double forgot_nobody = median(samples[3]);
  // The comparison means something only if a hash costs clearly more than
  // the bound's absolute slack.
  EXPECT_GT(std::min(login_unknown, login_wrong), 5.0) << "the default hash is unexpectedly cheap";
  expect_indistinguishable("/login unknown e-mail vs wrong password", login_unknown, login_wrong);
  expect_indistinguishable("/forgot existing vs unknown e-mail", forgot_known, forgot_nobody);
  RecordProperty("login_unknown_ms", std::to_string(login_unknown));
  RecordProperty("login_wrong_password_ms", std::to_string(login_wrong));
  RecordProperty("forgot_existing_ms", std::to_string(forgot_known));
  RecordProperty("forgot_unknown_ms", std::to_string(forgot_nobody));
}

}  // namespace
}  // namespace authd::test
