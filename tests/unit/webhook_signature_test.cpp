// webhooks/signature: the Standard Webhooks signature (interface.md 14.4),
// checked against the specification's published example and against
// OpenSSL's HMAC (an implementation of its own), and the secret's format.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "temp_directory.hpp"
#include "webhooks/signature.hpp"

namespace authd {
namespace {

WebhookKey key_of(const std::string& secret) {
  std::string problem;
  std::optional<WebhookKey> key = parse_webhook_secret(secret, problem);
  if (!key) throw std::runtime_error(problem);
  return std::move(*key);
}

// interface.md 14.4: the example of the specification's reference
// libraries (standard-webhooks, libraries/javascript/src/webhook.test.ts,
// "sign function works").
TEST(WebhookSignature, Interface_14_4_MatchesTheSpecificationsExample) {
  WebhookKey key = key_of("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  EXPECT_EQ(
      webhook_signature(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, R"({"test": 2432232314})"),
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

// The same HMAC as OpenSSL's command line computes over the same bytes.
TEST(WebhookSignature, Interface_14_4_MatchesOpenSslsHmac) {
  const std::string secret = "whsec_q2lFHp3ZQ9vM0qYv9Jm5J0cUu2T4C3oQm7r8h1Yy0wE=";
  const std::string hex = "ab69451e9dd943dbccd2a62ff499b9274714bb64f80b7a109bbafc875632d301";
  test::TempDirectory dir;
  std::string message_file = dir.file("message");
  const std::string body = R"({"id":"018f","type":"logout","detail":{"ü":"é"}})";
  std::ofstream(message_file, std::ios::binary) << "0190a1b2." << 1700000000 << "." << body;
  std::string command = "/usr/bin/openssl dgst -sha256 -mac HMAC -macopt hexkey:" + hex +
                        " -binary < " + message_file + " | /usr/bin/base64 -w0";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 128> buffer{};
  std::string expected;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) expected += buffer.data();
  ASSERT_EQ(::pclose(pipe), 0);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(webhook_signature(key_of(secret), "0190a1b2", 1700000000, body), "v1," + expected);
}

// interface.md 14.4: the secret is whsec_ and base64 of 24 to 64 bytes;
// a trailing newline is tolerated; anything else is refused without being
// quoted.
TEST(WebhookSignature, Interface_14_4_TheSecretIsWhsecAndBase64) {
  std::string problem;
  EXPECT_TRUE(parse_webhook_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", problem));
  EXPECT_TRUE(parse_webhook_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\r\n", problem));
  const char* refused[] = {
      "",
      "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",                                  // no prefix
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",  // a hex key
      "whsec_",
      "whsec_not base64!",
      "whsec_c2hvcnQ=",                              // 5 bytes
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n\n",  // two newlines
  };
  for (const char* text : refused) {
    problem.clear();
    EXPECT_FALSE(parse_webhook_secret(text, problem)) << text;
    EXPECT_FALSE(problem.empty());
    if (std::string(text).size() > 6) {
      EXPECT_EQ(problem.find(std::string(text).substr(6)), std::string::npos) << problem;
    }
  }
}

// interface.md 14.4: a secret file every user may read is refused, as is a
// missing one; 0600 and 0640 are read.
TEST(WebhookSignature, Interface_14_4_ASecretFileReadableByEveryUserIsRefused) {
  test::TempDirectory dir;
  std::string path = dir.file("webhook.secret");
  std::ofstream(path) << "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n";
  std::string problem;
  ::chmod(path.c_str(), 0644);
  EXPECT_FALSE(read_webhook_secret_file(path, problem));
  EXPECT_NE(problem.find("readable by every user"), std::string::npos) << problem;
  EXPECT_EQ(problem.find("MfKQ"), std::string::npos);
  ::chmod(path.c_str(), 0640);
  EXPECT_TRUE(read_webhook_secret_file(path, problem));
  ::chmod(path.c_str(), 0600);
  EXPECT_TRUE(read_webhook_secret_file(path, problem));
  EXPECT_FALSE(read_webhook_secret_file(dir.file("missing"), problem));
}

}  // namespace
}  // namespace authd
