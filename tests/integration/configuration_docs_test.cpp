// interface.md 9.1: every option is documented. docs/reference/configuration.md is
// the reference: each flag that `authd serve --help` lists must appear in
// it, written as `--flag`.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "run_authd.hpp"
#include "source_paths.hpp"

namespace authd::test {
namespace {

TEST(ConfigurationDocs, Interface_9_1_EveryServeFlagIsInDocsConfiguration) {
  CommandResult help = run_authd({"serve", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.output;
  std::ifstream file(source_path("docs/reference/configuration.md"));
  std::stringstream docs;
  docs << file.rdbuf();
  ASSERT_FALSE(docs.str().empty());

  std::set<std::string> flags;
  static const std::regex kFlag("--[a-z0-9][a-z0-9-]*");
  for (auto it = std::sregex_iterator(help.output.begin(), help.output.end(), kFlag);
       it != std::sregex_iterator(); ++it)
    flags.insert(it->str());
  flags.erase("--help");
  EXPECT_GT(flags.size(), 30u) << help.output;
  for (const std::string& flag : flags) {
    // `--flag` alone or with its value (`--config FILE`).
    EXPECT_TRUE(docs.str().find("`" + flag + "`") != std::string::npos ||
                docs.str().find("`" + flag + " ") != std::string::npos)
        << flag << " is missing from docs/reference/configuration.md";
  }
}

}  // namespace
}  // namespace authd::test
