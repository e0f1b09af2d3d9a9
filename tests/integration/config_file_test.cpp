// The TOML configuration file (--config FILE, AUTHD_CONFIG) and `authd
// config` (interface.md 9.1): keys are the long flag
// names, precedence is flags > environment > file > defaults, unknown keys
// and wrong types are errors naming the key, and the effective
// configuration is printed with secrets redacted.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "harness.hpp"
#include "run_authd.hpp"

namespace authd::test {
namespace {

// A scratch directory with a config file in it.
class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/authd-config-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& text, const std::string& name = "authd.toml") {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }

  std::string dir_;
};

// The value of `key = value` in `authd config` output ("" when absent).
std::string value_of(const std::string& toml, const std::string& key) {
  std::regex line("(^|\n)" + key + " = ([^\n]*)");
  std::smatch m;
  return std::regex_search(toml, m, line) ? m[2].str() : "";
}

TEST_F(ConfigFile, ValuesFromTheFileApply) {
  std::string path = write(
      "hash-queue = 7\nsession-lifetime = \"2h\"\n"
      "cors-origins = [\"https://app.example\"]\n");
  CommandResult r = run_authd({"config", "--config", path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(value_of(r.output, "hash-queue"), "7");
  EXPECT_EQ(value_of(r.output, "session-lifetime"), "'2h'");
  EXPECT_EQ(value_of(r.output, "cors-origins"), "['https://app.example']");
  EXPECT_EQ(value_of(r.output, "hash-workers"), "0") << "a default";
}

// A value the option rewrites (CORS origins normalised to the form browsers
// send, interface.md 5.2) is applied, and shown, rewritten when it comes
// from the file too.
TEST_F(ConfigFile, OriginsFromTheFileAreNormalisedLikeTheFlag) {
  std::string path =
      write("cors-origins = [\"HTTPS://App.Example:443\", \"http://LocalHost:8080\"]\n");
  CommandResult r = run_authd({"config", "--config", path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(value_of(r.output, "cors-origins"), "['https://app.example', 'http://localhost:8080']");
}

TEST_F(ConfigFile, AuthdConfigEnvironmentVariableNamesTheFile) {
  std::string path = write("hash-queue = 9\n");
  CommandResult r = run_authd({"config"}, {"AUTHD_CONFIG=" + path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(value_of(r.output, "hash-queue"), "9");
}

// Flags > environment > file > defaults, each tier checked on its own key.
TEST_F(ConfigFile, PrecedenceIsFlagsThenEnvironmentThenFileThenDefaults) {
  std::string path = write("io-threads = 5\nhash-workers = 3\nhash-queue = 7\n");
  CommandResult r = run_authd({"config", "--config", path, "--io-threads", "8"},
                              {"AUTHD_IO_THREADS=6", "AUTHD_HASH_WORKERS=4"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(value_of(r.output, "io-threads"), "8") << "the flag beats environment and file";
  EXPECT_EQ(value_of(r.output, "hash-workers"), "4") << "the environment beats the file";
  EXPECT_EQ(value_of(r.output, "hash-queue"), "7") << "the file beats the default";
  EXPECT_EQ(value_of(r.output, "database-threads"), "0") << "the default (automatic)";
}

TEST_F(ConfigFile, UnknownKeyIsAnErrorThatNamesTheKey) {
  std::string path = write("listen = \"127.0.0.1:0\"\nlissten = \"127.0.0.1:0\"\n");
  CommandResult r = run_authd({"serve", "--config", path});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown key 'lissten'"), std::string::npos) << r.output;
}

// Keys are flat: a table is not a key.
TEST_F(ConfigFile, TableIsAnUnknownKey) {
  std::string path = write("[argon2]\nmemory-kib = 19456\n");
  CommandResult r = run_authd({"config", "--config", path});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown key 'argon2'"), std::string::npos) << r.output;
}

TEST_F(ConfigFile, WrongTypeIsAnErrorThatNamesTheKey) {
  for (const char* text :
       {"hash-queue = \"64\"\n", "listen = 8080\n", "cors-origins = \"https://app.example\"\n"}) {
    std::string path = write(text);
    CommandResult r = run_authd({"config", "--config", path});
    std::string key = std::string(text).substr(0, std::string(text).find(' '));
    EXPECT_EQ(r.exit_code, 2) << text << r.output;
    EXPECT_NE(r.output.find("key '" + key + "' must be"), std::string::npos) << r.output;
  }
}

// A file value goes through the same checks as the flag.
TEST_F(ConfigFile, InvalidValueIsRejectedLikeTheFlag) {
  for (const char* text : {"session-lifetime = \"forever\"\n", "argon2-iterations = 0\n",
                           "log-level = \"loud\"\n", "cors-origins = [\"*\"]\n"}) {
    std::string path = write(text);
    CommandResult r = run_authd({"config", "--config", path});
    std::string key = std::string(text).substr(0, std::string(text).find(' '));
    EXPECT_EQ(r.exit_code, 2) << text << r.output;
    EXPECT_NE(r.output.find("key '" + key + "'"), std::string::npos) << r.output;
  }
}

// A throttle check reads up to COUNT events, so a limit's COUNT
// is 1 to 1,000,000 (docs/reference/configuration.md); anything else is refused at
// start with a message that says the range, from a flag and from the file.
TEST_F(ConfigFile, ThrottleCountOutsideOneToAMillionIsRefused) {
  for (const char* value : {"0/15m", "1000001/15m", "99999999999/1m"}) {
    CommandResult flag = run_authd({"config", "--login-email-limit", value});
    EXPECT_NE(flag.exit_code, 0) << value << flag.output;  // CLI11's code for a bad flag
    EXPECT_NE(flag.output.find("COUNT from 1 to 1000000"), std::string::npos) << flag.output;
    std::string path = write(std::string("forgot-client-limit = \"") + value + "\"\n");
    CommandResult file = run_authd({"config", "--config", path});
    EXPECT_EQ(file.exit_code, 2) << value << file.output;
    EXPECT_NE(file.output.find("key 'forgot-client-limit'"), std::string::npos) << file.output;
  }
  CommandResult edge = run_authd({"config", "--reset-mail-limit-long", "1000000/1h"});
  EXPECT_EQ(edge.exit_code, 0) << edge.output;
}

TEST_F(ConfigFile, SyntaxErrorNamesFileAndLine) {
  std::string path = write("listen = \"127.0.0.1:0\"\nhash-queue = \n");
  CommandResult r = run_authd({"config", "--config", path});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path + ":2:"), std::string::npos) << r.output;
}

TEST_F(ConfigFile, MissingFileIsAnError) {
  CommandResult r = run_authd({"config", "--config", dir_ + "/nope.toml"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("nope.toml"), std::string::npos) << r.output;
}

// One file serves every command: a key the command does not take (listen,
// for `authd user add`) is ignored, the ones it takes apply.
TEST_F(ConfigFile, OneFileServesServeAndTheOperatorCommands) {
  std::string config = write(
      "listen = \"127.0.0.1:0\"\nlog-level = \"warn\"\n"
      "argon2-memory-kib = 64\nargon2-iterations = 1\n");
  AuthdProcess authd({"--config", config});
  authd.add_user("ada@example.com", "correct horse battery", {"--config", config});
  std::string output;
  EXPECT_EQ(
      authd.cli({"user", "show", "--email", "ada@example.com", "--config", config}, "", &output), 0)
      << output;
  EXPECT_FALSE(authd.login("ada@example.com", "correct horse battery").empty());
  // log-level = "warn" from the file: no info lines (listening, requests).
  EXPECT_EQ(authd.log_text().find("\"listening\""), std::string::npos) << authd.log_text();
  EXPECT_EQ(authd.log_text().find("\"request\""), std::string::npos);
}

// Secrets never appear: the password inside a database URL, and keys that
// hold a password.
TEST_F(ConfigFile, AuthdConfigRedactsSecrets) {
  CommandResult r =
      run_authd({"config", "--database",
                 "postgresql://alice:s3cr3t-pw@db.example:5432/authd?sslmode=require"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("s3cr3t-pw"), std::string::npos) << r.output;
  EXPECT_EQ(value_of(r.output, "database"),
            "'postgresql://alice:<redacted>@db.example:5432/authd?sslmode=require'");
}

TEST_F(ConfigFile, AuthdConfigRedactsTheSmtpPasswordFromFlagEnvironmentAndFile) {
  CommandResult flag = run_authd({"config", "--smtp-password", "hunter2-flag"});
  ASSERT_EQ(flag.exit_code, 0) << flag.output;
  EXPECT_EQ(flag.output.find("hunter2"), std::string::npos) << flag.output;
  EXPECT_EQ(value_of(flag.output, "smtp-password"), "'<redacted>'");

  CommandResult env = run_authd({"config"}, {"AUTHD_SMTP_PASSWORD=hunter2-env"});
  ASSERT_EQ(env.exit_code, 0) << env.output;
  EXPECT_EQ(env.output.find("hunter2"), std::string::npos) << env.output;
  EXPECT_EQ(value_of(env.output, "smtp-password"), "'<redacted>'");

  std::string path = write(
      "smtp-password = \"hunter2-file\"\n"
      "smtp-url = \"smtp://mailer:hunter2-url@smtp.example:587\"\n");
  CommandResult file = run_authd({"config", "--config", path});
  ASSERT_EQ(file.exit_code, 0) << file.output;
  EXPECT_EQ(file.output.find("hunter2"), std::string::npos) << file.output;
  EXPECT_EQ(value_of(file.output, "smtp-url"), "'smtp://mailer:<redacted>@smtp.example:587'");
}

// 1:1 keys and flags: every option of `authd serve --help` is a key of
// `authd config`, and the printed document is a valid --config file that
// gives the same configuration back.
TEST_F(ConfigFile, AuthdConfigPrintsEveryServeOptionAsAReusableFile) {
  CommandResult help = run_authd({"serve", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  std::set<std::string> flags;
  std::regex flag(R"((^|\s)--([a-z0-9][a-z0-9-]*))");
  for (auto it = std::sregex_iterator(help.output.begin(), help.output.end(), flag);
       it != std::sregex_iterator(); ++it)
    flags.insert((*it)[2]);
  flags.erase("help");
  flags.erase("config");
  ASSERT_GT(flags.size(), 20u);

  CommandResult printed = run_authd(
      {"config", "--hash-queue", "5", "--cors-origins", "https://a.example,http://b:8080"});
  ASSERT_EQ(printed.exit_code, 0) << printed.output;
  for (const auto& key : flags) {
    EXPECT_NE(printed.output.find("\n" + key + " = "), std::string::npos) << key;
  }
  std::string path = write(printed.output);
  CommandResult again = run_authd({"config", "--config", path});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.output, printed.output);
}

}  // namespace
}  // namespace authd::test
