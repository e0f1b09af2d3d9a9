// interface.md 18.1.1, 18.5.1: the `keep-tokens` key of an [[upstream]]
// table: a boolean, shown by `authd config`, and refused at start without
// a secret key to seal the tokens with (PostgreSQL without
// --secret-key-file).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness.hpp"
#include "run_authd.hpp"

namespace authd::test::kept_tokens_config {
namespace {

std::string conf_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("authd-keep-tokens-conf-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// 18.1.1: keep-tokens is a boolean; another value names the key, exit 2;
// `authd config` shows it.
TEST(UpstreamKeptTokensConfig, Interface_18_5_KeepTokensMustBeABoolean) {
  std::string secret = conf_path("corp.secret");
  std::ofstream(secret) << "top-secret-value\n";
  const std::string table =
      "[[upstream]]\nname = \"corp\"\nissuer = \"https://idp.example.com\"\nclient-id = "
      "\"authd\"\nclient-secret-file = \"" +
      secret + "\"\nlabel = \"Corp\"\n";
  std::string bad = conf_path("bad.toml");
  std::ofstream(bad) << table << "keep-tokens = \"yes\"\n";
  AuthdProcess authd(fast_hashing());
  std::string out, err;
  EXPECT_EQ(authd.cli_streams({"config", "--config", bad}, "", &out, &err), 2);
  EXPECT_NE(err.find("key 'keep-tokens': must be true or false"), std::string::npos) << err;

  std::string good = conf_path("good.toml");
  std::ofstream(good) << table << "keep-tokens = true\n";
  ASSERT_EQ(authd.cli_streams({"config", "--config", good}, "", &out, &err), 0) << err;
  EXPECT_NE(out.find("keep-tokens = true"), std::string::npos) << out;
  std::string plain = conf_path("plain.toml");
  std::ofstream(plain) << table;
  ASSERT_EQ(authd.cli_streams({"config", "--config", plain}, "", &out, &err), 0) << err;
  EXPECT_NE(out.find("keep-tokens = false"), std::string::npos) << out;
}

// 18.5.1: tokens are only ever kept sealed: on PostgreSQL without a secret
// key, a provider with keep-tokens stops the start (exit 2), naming it.
TEST(UpstreamKeptTokensConfig, Interface_18_5_KeepTokensWithoutASecretKeyStopsTheStart) {
  AUTHD_POSTGRES_ONLY();
  AuthdProcess authd(fast_hashing());
  std::string secret = conf_path("corp.secret");
  std::ofstream(secret) << "top-secret-value\n";
  std::string config = conf_path("keep.toml");
  std::ofstream(config) << "[[upstream]]\nname = \"corp\"\nissuer = \"https://idp.example.com\"\n"
                           "client-id = \"authd\"\nclient-secret-file = \""
                        << secret << "\"\nlabel = \"Corp\"\nkeep-tokens = true\n";
  CommandResult result = run_authd({"serve", "--database", authd.database_url(), "--listen",
                                    "127.0.0.1:0", "--admin-listen", "off", "--public-url",
                                    "http://127.0.0.1:9", "--config", config});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("keep-tokens"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("corp"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace authd::test::kept_tokens_config
