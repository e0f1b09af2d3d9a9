// Settings that would expose secrets on the way: refused or
// warned about at start, through the real binary's exit code and log.
// - interface.md 6 /forgot 3: the reset link never goes in clear to a
//   remote relay unless --smtp-allow-plaintext says so (exit 2);
// - interface.md 8.2: a PostgreSQL server on another machine without
//   sslmode=verify-full is warned about;
// - interface.md 9.1: a secret given as a flag (argv is readable by every
//   local user) is warned about, never logged itself;
// - interface.md 13.1: a trusted-proxy network holding every address is
//   warned about;
// - interface.md 13.5: a session cookie without the `__Host-` prefix on an
//   https:// public URL is warned about.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness.hpp"
#include "run_authd.hpp"
#include "source_paths.hpp"

namespace authd::test {
namespace {

class StartupChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/authd-startup-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `authd serve` on this test's SQLite file and a free port, plus `args`:
  // its exit code (0 when it started and then drained on SIGTERM) and log.
  CommandResult serve(std::vector<std::string> args, std::vector<std::string> environment = {}) {
    // Both listeners on free ports: tests run side by side.
    std::vector<std::string> command = {"serve", "--listen", "127.0.0.1:0", "--admin-listen",
                                        "127.0.0.1:0"};
    if (std::find(args.begin(), args.end(), "--database") == args.end())
      command.insert(command.end(), {"--database", "sqlite:" + dir_ + "/authd.db"});
    command.insert(command.end(), {"--mail-dir", dir_ + "/mail", "--port-file", dir_ + "/port"});
    command.insert(command.end(), args.begin(), args.end());
    std::filesystem::remove(dir_ + "/port");
    return run_until_listening(command, environment);
  }

  // Runs authd in the background; once its port file exists (it listens),
  // sends SIGTERM; returns its exit code and log.
  CommandResult run_until_listening(const std::vector<std::string>& args,
                                    const std::vector<std::string>& environment) {
    std::string script = "env";
    for (const auto& variable : environment) script += " " + shell_quote(variable);
    script += " " + shell_quote(authd_binary());
    for (const auto& arg : args) script += " " + shell_quote(arg);
    script += " > " + shell_quote(dir_ + "/authd.log") + " 2>&1 < /dev/null & pid=$!; ";
    // Polls (bounded) for the port file or the process's end.
    script += "for i in $(seq 1 750); do [ -s " + shell_quote(dir_ + "/port") +
              " ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.02; done; "
              "kill -TERM $pid 2>/dev/null; wait $pid; echo \"exit=$?\"";
    CommandResult shell = run_command(script);
    CommandResult result;
    auto at = shell.output.rfind("exit=");
    if (at != std::string::npos) result.exit_code = std::stoi(shell.output.substr(at + 5));
    std::ifstream log(dir_ + "/authd.log");
    result.output.assign(std::istreambuf_iterator<char>(log), {});
    return result;
  }

  static CommandResult run_command(const std::string& script) {
    return run_shell("/bin/bash -c " + shell_quote(script));
  }

  std::string dir_;
};

bool logged_event(const std::string& log, const std::string& event) {
  return log.find("\"event\":\"" + event + "\"") != std::string::npos;
}

// 6 /forgot 3: plain or opportunistic SMTP (STARTTLS can be stripped by
// anyone on the path) to a relay on another machine is refused at start,
// exit 2 with a bad_configuration line, with or without credentials.
TEST_F(StartupChecks, Interface_6_Forgot_3_ResetLinkInClearToARemoteRelayIsRefused) {
  for (const char* mode : {"off", "opportunistic"}) {
    CommandResult r = serve({"--mail-transport", "smtp", "--smtp-url",
                             "smtp://mail.example.com:587", "--smtp-starttls", mode});
    EXPECT_EQ(r.exit_code, 2) << mode << "\n" << r.output;
    EXPECT_TRUE(logged_event(r.output, "bad_configuration")) << r.output;
    EXPECT_NE(r.output.find("--smtp-allow-plaintext"), std::string::npos) << r.output;
  }
}

// 6 /forgot 3: the explicit flag allows it, with a warning; TLS, implicit
// TLS and a relay on this machine need no flag.
TEST_F(StartupChecks, Interface_6_Forgot_3_PlaintextOnlyWithTheExplicitFlagOrOnLoopback) {
  CommandResult allowed =
      serve({"--mail-transport", "smtp", "--smtp-url", "smtp://mail.example.com:587",
             "--smtp-starttls", "off", "--smtp-allow-plaintext"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
  EXPECT_TRUE(logged_event(allowed.output, "smtp_plaintext_allowed")) << allowed.output;

  CommandResult by_environment =
      serve({"--mail-transport", "smtp", "--smtp-url", "smtp://mail.example.com:587",
             "--smtp-starttls", "opportunistic"},
            {"AUTHD_SMTP_ALLOW_PLAINTEXT=true"});
  EXPECT_EQ(by_environment.exit_code, 0) << by_environment.output;

  for (std::vector<std::string> safe : {
           std::vector<std::string>{"--smtp-url", "smtp://mail.example.com:587"},  // auto
           std::vector<std::string>{"--smtp-url", "smtp://mail.example.com:587", "--smtp-starttls",
                                    "required"},
           std::vector<std::string>{"--smtp-url", "smtps://mail.example.com:465", "--smtp-starttls",
                                    "off"},
           std::vector<std::string>{"--smtp-url", "smtp://127.0.0.1:25", "--smtp-starttls", "off"},
       }) {
    safe.insert(safe.begin(), {"--mail-transport", "smtp"});
    CommandResult r = serve(safe);
    EXPECT_EQ(r.exit_code, 0) << safe[3] << "\n" << r.output;
    EXPECT_FALSE(logged_event(r.output, "smtp_plaintext_allowed")) << r.output;
  }
}

// 8.2: a database on another machine without sslmode=verify-full is
// warned about at start (the connection itself then fails here: there is
// no such server, which does not matter for the warning).
TEST_F(StartupChecks, Interface_8_2_RemotePostgresqlWithoutVerifiedTlsIsWarnedAbout) {
  const std::vector<std::string> fast = {"--database-timeout", "300ms"};
  auto run = [&](const std::string& url) {
    std::vector<std::string> args = {"--database", url};
    args.insert(args.end(), fast.begin(), fast.end());
    return serve(args);
  };
  for (const std::string url : {"postgresql://authd@192.0.2.1:5432/authd",
                                "postgresql://authd@192.0.2.1/authd?sslmode=require",
                                "postgresql://authd@192.0.2.1/authd?sslmode=verify-ca",
                                "postgres://authd@127.0.0.1:1,192.0.2.1/authd"}) {
    CommandResult r = run(url);
    EXPECT_NE(r.exit_code, 0) << url;
    EXPECT_TRUE(logged_event(r.output, "database_connection_unverified")) << url << "\n"
                                                                          << r.output;
    EXPECT_NE(r.output.find("\"host\":\"192.0.2.1\""), std::string::npos) << r.output;
  }
  for (const std::string url :
       {"postgresql://authd@192.0.2.1/authd?sslmode=verify-full",
        "postgresql://authd@127.0.0.1:1/authd", "postgresql://authd@localhost:1/authd",
        "postgresql://authd@[::1]:1/authd", "postgresql:///authd?host=/nonexistent/socket/dir"}) {
    CommandResult r = run(url);
    EXPECT_NE(r.exit_code, 0) << url;
    EXPECT_FALSE(logged_event(r.output, "database_connection_unverified")) << url << "\n"
                                                                           << r.output;
  }
}

// 9.1: a secret given as a flag is warned about (naming the flag, never
// the value); the same secret from the environment or the config file is
// not.
TEST_F(StartupChecks, Interface_9_1_SecretOnTheCommandLineIsWarnedAbout) {
  const std::string password = "Argv-Visible-Secret-42";
  CommandResult flag = serve({"--smtp-password", password});
  EXPECT_EQ(flag.exit_code, 0) << flag.output;
  EXPECT_TRUE(logged_event(flag.output, "secret_on_command_line")) << flag.output;
  EXPECT_NE(flag.output.find("\"option\":\"--smtp-password\""), std::string::npos);
  EXPECT_EQ(flag.output.find(password), std::string::npos) << flag.output;

  CommandResult equals = serve({"--smtp-password=" + password});
  EXPECT_TRUE(logged_event(equals.output, "secret_on_command_line")) << equals.output;

  CommandResult environment = serve({}, {"AUTHD_SMTP_PASSWORD=" + password});
  EXPECT_EQ(environment.exit_code, 0) << environment.output;
  EXPECT_FALSE(logged_event(environment.output, "secret_on_command_line")) << environment.output;

  std::ofstream(dir_ + "/authd.toml") << "smtp-password = \"" << password << "\"\n";
  CommandResult file = serve({"--config", dir_ + "/authd.toml"});
  EXPECT_EQ(file.exit_code, 0) << file.output;
  EXPECT_FALSE(logged_event(file.output, "secret_on_command_line")) << file.output;

  // A database URL with a password, on the command line of any command.
  const std::string url = "postgresql://authd:" + password + "@127.0.0.1:1/authd";
  CommandResult database = serve({"--database", url, "--database-timeout", "300ms"});
  EXPECT_TRUE(logged_event(database.output, "secret_on_command_line")) << database.output;
  EXPECT_NE(database.output.find("\"option\":\"--database\""), std::string::npos);
  EXPECT_EQ(database.output.find(password), std::string::npos) << database.output;
  CommandResult user = run_authd({"user", "show", "--email", "a@example.com", "--database", url,
                                  "--database-timeout", "300ms"});
  EXPECT_TRUE(logged_event(user.output, "secret_on_command_line")) << user.output;
  EXPECT_EQ(user.output.find(password), std::string::npos) << user.output;
  CommandResult from_environment =
      run_authd({"user", "show", "--email", "a@example.com", "--database-timeout", "300ms"},
                {"AUTHD_DATABASE=" + url});
  EXPECT_FALSE(logged_event(from_environment.output, "secret_on_command_line"))
      << from_environment.output;
  // A URL without a password is no secret.
  CommandResult plain =
      serve({"--database", "postgresql://authd@127.0.0.1:1/authd", "--database-timeout", "300ms"});
  EXPECT_FALSE(logged_event(plain.output, "secret_on_command_line")) << plain.output;
}

// 13.1: a trusted network that contains every address lets any client
// name itself: allowed, but warned about.
TEST_F(StartupChecks, Interface_13_1_TrustingEveryAddressIsWarnedAbout) {
  for (const char* everyone : {"0.0.0.0/0", "10.0.0.0/8,::/0"}) {
    CommandResult r = serve({"--trusted-proxies", everyone});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(logged_event(r.output, "trusted_proxies_include_everyone")) << r.output;
  }
  CommandResult some = serve({"--trusted-proxies", "127.0.0.1/32,10.0.0.0/8"});
  EXPECT_EQ(some.exit_code, 0) << some.output;
  EXPECT_FALSE(logged_event(some.output, "trusted_proxies_include_everyone")) << some.output;
}

// 13.5: cookie sessions on an https:// public URL with a name that lacks
// `__Host-` start, with a warning naming the cookie; with the prefix, none.
TEST_F(StartupChecks, Interface_13_5_CookieWithoutHostPrefixOverHttpsIsWarnedAbout) {
  CommandResult plain =
      serve({"--session-cookie", "authd_session", "--public-url", "https://auth.example.com"});
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_TRUE(logged_event(plain.output, "session_cookie_without_host_prefix")) << plain.output;
  CommandResult prefixed = serve(
      {"--session-cookie", "__Host-authd_session", "--public-url", "https://auth.example.com"});
  EXPECT_EQ(prefixed.exit_code, 0) << prefixed.output;
  EXPECT_FALSE(logged_event(prefixed.output, "session_cookie_without_host_prefix"))
      << prefixed.output;
}

}  // namespace
}  // namespace authd::test

namespace authd::test {
namespace {

// 17.2: the issuer is https://, or http:// on a loopback host.
TEST_F(StartupChecks, Interface_17_2_HttpIssuerOffLoopbackIsRefused) {
  CommandResult plain = serve({"--oidc", "on", "--public-url", "http://auth.example.com"});
  EXPECT_EQ(plain.exit_code, 2) << plain.output;
  EXPECT_TRUE(logged_event(plain.output, "bad_configuration")) << plain.output;
  for (const char* url : {"https://auth.example.com", "http://127.0.0.1:8080"}) {
    CommandResult fine = serve({"--oidc", "on", "--public-url", url});
    EXPECT_EQ(fine.exit_code, 0) << url << ": " << fine.output;
  }
}

// 17.2, 17.12: the signing keys are sealed with the secret key; on
// PostgreSQL, where no key file is made beside the database, --oidc on
// without --secret-key-file does not start.
TEST_F(StartupChecks, Interface_17_12_ProviderWithoutSecretKeyOnPostgresIsRefused) {
  if (!on_postgres()) GTEST_SKIP() << "PostgreSQL only: SQLite makes a key beside the database";
  CommandResult refused = serve({"--oidc", "on", "--public-url", "https://auth.example.com",
                                 "--database", fresh_postgres_database()});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--secret-key-file"), std::string::npos) << refused.output;
}

}  // namespace
}  // namespace authd::test
