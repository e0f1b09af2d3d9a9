// Secrets never leave where they belong (interface.md 9.2, 5.1, 6 /forgot 3;
// docs/design/threat-model/secrets-and-data.md#log-leak). A whole flow runs at
// debug log level: failed and refused logins, logins, /me, a bogus token,
// /forgot, a refused and a successful /reset, logout. Then every secret the
// flow handled is looked for in the server's log, in every response body and in
// the mails:
// - passwords (old, wrong, too short, new), bearer tokens, the reset token:
//   never in the log or a response body;
// - argon2id hashes and token digests (as stored, in hex either case, in
//   base64): never in the log;
// - mails: the reset token only inside the reset link (in each part of the
//   mail), nothing else secret.
#include <regex>
#include <set>

#include "contract_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

const std::string kOldPassword = "Old-Secret-Passphrase-1";
const std::string kWrongPassword = "Wrong-Guess-Passphrase-2";
const std::string kShortPassword = "Short-3";  // under 8: refused by /reset
const std::string kSecretNewPassword = "New-Secret-Passphrase-4";
const std::string kBogusToken = "authd_BogusTokenThatNeverExisted0123456789abcdefgh";

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The hex digests stored in `table`, as SQLite prints blobs (upper case).
std::vector<std::string> stored_digests(const AuthdProcess& authd, const std::string& table) {
  return lines(authd.sql("select hex(token_digest) from " + table));
}

std::string base64(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.find('\0'));
  return out;
}

// Each secret with a name for the failure message.
using Secrets = std::vector<std::pair<std::string, std::string>>;

void expect_absent(const std::string& where, const std::string& text, const Secrets& secrets) {
  for (const auto& [name, secret] : secrets) {
    ASSERT_FALSE(secret.empty()) << name;
    EXPECT_EQ(text.find(secret), std::string::npos) << name << " appears in " << where;
  }
}

// 9.2 and the security habits: the whole flow at debug level leaks no
// password, token, reset token, hash or digest into the log, the response
// bodies or the mails (except the reset link itself).
TEST(Secrets, Interface_9_2_NoSecretInLogsResponsesOrMailsAtDebugLevel) {
  std::vector<std::string> args = fast_hashing();
  args.insert(args.end(), {"--log-level", "debug"});
  AuthdProcess authd(args);
  std::string cli_output;
  ASSERT_EQ(authd.cli({"user", "add", "--email", kEmail, "--argon2-memory-kib", "64",
                       "--argon2-iterations", "1"},
                      kOldPassword, &cli_output),
            0)
      << cli_output;
  std::vector<std::string> hashes = lines(authd.sql("select password_hash from users"));
  ASSERT_EQ(hashes.size(), 1u);

  std::vector<HttpResponse> responses;
  auto keep = [&](HttpResponse res) {
    responses.push_back(res);
    return res;
  };
  const Headers json = {{"Content-Type", "application/json"}};

  // Failed and refused logins: unknown e-mail, wrong password, a password
  // over 255 characters (400), and a body that is not JSON (400).
  EXPECT_EQ(
      keep(post_json(authd.port(), "/login", login_body("nobody@example.com", kWrongPassword)))
          .status,
      401);
  EXPECT_EQ(keep(post_json(authd.port(), "/login", login_body(kEmail, kWrongPassword))).status,
            401);
  EXPECT_EQ(keep(post_json(authd.port(), "/login",
                           login_body(kEmail, kWrongPassword + std::string(300, 'x'))))
                .status,
            400);
  EXPECT_EQ(keep(post_json(authd.port(), "/login",
                           "{\"email\":\"" + kEmail + "\",\"password\":\"" + kWrongPassword))
                .status,
            400);

  // Two sessions, /me, a bogus token.
  HttpResponse first = keep(post_json(authd.port(), "/login", login_body(kEmail, kOldPassword)));
  ASSERT_EQ(first.status, 200) << first.body;
  std::string token1 = token_of(first);
  std::string token2 = authd.login(kEmail, kOldPassword);
  ASSERT_FALSE(token2.empty());
  std::vector<std::string> session_digests = stored_digests(authd, "sessions");
  EXPECT_EQ(keep(get_with_token(authd.port(), "/me", token1)).status, 200);
  EXPECT_EQ(keep(get_with_token(authd.port(), "/me", kBogusToken)).status, 401);

  // Forgot, the mail, a refused reset (too short: the token is not used
  // up), then the reset.
  EXPECT_EQ(keep(post_json(authd.port(), "/forgot", forgot_body(kEmail))).status, 200);
  std::vector<std::string> mails = authd.wait_for_mails(1);
  ASSERT_EQ(mails.size(), 1u);
  std::smatch link;
  ASSERT_TRUE(std::regex_search(
      mails[0], link, std::regex(R"(http://authd\.test/reset#token=([a-z0-9]+_[A-Za-z0-9_-]+))")))
      << mails[0];
  std::string reset_token = link[1].str();
  std::vector<std::string> reset_digests = stored_digests(authd, "reset_tokens");
  ASSERT_EQ(reset_digests.size(), 1u);
  std::string reset_with_short =
      nlohmann::json{{"token", reset_token}, {"password", kShortPassword}}.dump();
  EXPECT_EQ(keep(post_json(authd.port(), "/reset", reset_with_short)).status, 400);
  std::string reset_body =
      nlohmann::json{{"token", reset_token}, {"password", kSecretNewPassword}}.dump();
  HttpResponse reset = keep(post_json(authd.port(), "/reset", reset_body));
  EXPECT_EQ(reset.status, 200) << reset.body;
  hashes.push_back(without_trailing_newlines(authd.sql("select password_hash from users")));
  EXPECT_EQ(keep(post_json(authd.port(), "/reset", reset_body)).status, 401);  // used up

  // The reset revoked both sessions; a new login, then logout.
  EXPECT_EQ(keep(get_with_token(authd.port(), "/me", token1)).status, 401);
  HttpResponse third =
      keep(post_json(authd.port(), "/login", login_body(kEmail, kSecretNewPassword)));
  ASSERT_EQ(third.status, 200) << third.body;
  std::string token3 = token_of(third);
  for (const std::string& digest : stored_digests(authd, "sessions"))
    session_digests.push_back(digest);
  EXPECT_EQ(keep(send_request(authd.port(), "POST", "/logout",
                              {{"Authorization", "Bearer " + token3}, {"X-Request-Id", "last"}}))
                .status,
            200);
  // The last request's log line is written just after its response: wait
  // for it (bounded), so that the whole flow is in the log.
  ASSERT_TRUE(eventually([&] { return authd.log_text().find("\"last\"") != std::string::npos; }));
  std::string log = authd.log_text();
  ASSERT_NE(log.find("\"level\":\"debug\""), std::string::npos) << "not at debug level";

  Secrets secrets = {{"old password", kOldPassword},
                     {"wrong password", kWrongPassword},
                     {"short password", kShortPassword},
                     {"new password", kSecretNewPassword},
                     {"token 1", token1},
                     {"token 2", token2},
                     {"token 3", token3},
                     {"bogus token", kBogusToken},
                     {"reset token", reset_token}};
  // The secret part alone, without its recognisable prefix.
  for (const std::string& token : {token1, token2, token3, reset_token})
    secrets.emplace_back("token without prefix", token.substr(token.find('_') + 1));

  Secrets at_rest = {{"argon2 marker", "$argon2"}};
  for (const std::string& hash : hashes) {
    at_rest.emplace_back("password hash", hash);
    at_rest.emplace_back("hash's digest part", hash.substr(hash.rfind('$') + 1));
  }
  std::vector<std::string> digests = session_digests;
  digests.insert(digests.end(), reset_digests.begin(), reset_digests.end());
  ASSERT_GE(digests.size(), 4u);
  for (const std::string& digest : digests) {
    at_rest.emplace_back("digest (hex)", digest);
    at_rest.emplace_back("digest (lower hex)", lower(digest));
    at_rest.emplace_back("digest (base64)", base64(digest));
  }
  // The digests of our tokens are what the database holds (else the check
  // above proves nothing).
  EXPECT_NE(std::find(session_digests.begin(), session_digests.end(), sha256_hex(token1)),
            session_digests.end());

  expect_absent("the log", log, secrets);
  expect_absent("the log", log, at_rest);
  expect_absent("the CLI output", cli_output, secrets);
  EXPECT_EQ(log.find(kEmail), std::string::npos) << "e-mails are masked in the log";

  for (const HttpResponse& res : responses) {
    expect_absent("a response body", res.body, secrets);
    expect_absent("a response body", res.body, at_rest);
  }

  // The mail holds the reset token only inside the reset link, and nothing
  // else secret.
  for (const std::string& mail : mails) {
    std::size_t count = 0;
    for (auto at = mail.find(reset_token); at != std::string::npos;
         at = mail.find(reset_token, at + 1)) {
      ++count;
      std::string prefix = "http://authd.test/reset#token=";
      ASSERT_GE(at, prefix.size());
      EXPECT_EQ(mail.substr(at - prefix.size(), prefix.size()), prefix);
    }
    EXPECT_GE(count, 1u) << mail;  // once per part (text, HTML): each time in the link
    Secrets others = secrets;
    others.erase(std::remove_if(others.begin(), others.end(),
                                [&](const auto& s) {
                                  return s.second == reset_token ||
                                         reset_token.find(s.second) != std::string::npos;
                                }),
                 others.end());
    expect_absent("the mail", mail, others);
    expect_absent("the mail", mail, at_rest);
  }
}

}  // namespace
}  // namespace authd::test
