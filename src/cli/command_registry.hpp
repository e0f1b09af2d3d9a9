// Every subcommand of authd is an entry of one registry: its name and help,
// the CLI11 setup of its options, and the function that runs it. Each cli/
// file adds its own entries (cli/commands.hpp); main() parses the command
// line and runs the one invoked.
#pragma once

#include <chrono>
#include <functional>
#include <list>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "config/config.hpp"

namespace authd {

struct Command {
  std::string name;
  std::string help;
  // Binds the command's options: to the Config the registry gives it, and to
  // whatever else its run reads (shared with run through a shared_ptr, as
  // the registry keeps both for as long as it lives).
  std::function<void(CLI::App&, Config&)> options;
  // The process's exit status.
  std::function<int(const Config&)> run;
  // `authd config`: runs before the log starts and before any warning is
  // logged, so that what it prints is all there is.
  bool before_logging = false;
  // How long a log line may wait to be written with others
  // (core/log_sink.hpp): zero, each at once.
  std::chrono::microseconds log_window{0};
  // `authd serve`: its options are the keys a --config file may hold.
  bool options_are_config_keys = false;
};

class CommandRegistry {
 public:
  explicit CommandRegistry(CLI::App& root) : root_(root) {}
  CommandRegistry(const CommandRegistry&) = delete;
  CommandRegistry& operator=(const CommandRegistry&) = delete;

  CLI::App& root() { return root_; }
  // A subcommand that only groups others (`user`, `admin-key`): one of them
  // must be named.
  CLI::App& add_group(CLI::App& parent, const std::string& name, const std::string& help);
  // Adds `command` under `parent` (the root when not given), with a Config
  // of its own, listed in --help in the order added.
  void add(CLI::App& parent, Command command);
  void add(Command command) { add(root_, std::move(command)); }

  struct Invoked {
    const Command& command;
    CLI::App& app;
    Config& config;  // main adds the file's [[upstream]] tables
  };
  // After parsing: the command named on the command line, if any.
  std::optional<Invoked> invoked();
  // The app whose options are a --config file's keys (authd serve's).
  const CLI::App* config_keys() const { return config_keys_; }

 private:
  struct Entry {
    Command command;
    CLI::App* app = nullptr;
    // One Config per subcommand: CLI11 applies AUTHD_* variables to the
    // options of every subcommand, invoked or not, so options bound to one
    // shared struct would let the environment override an invoked command's
    // flags. The same holds for the --config file: it is applied to the
    // invoked command's options only (config/config_file.hpp).
    Config config;
  };
  CLI::App& root_;
  std::list<Entry> entries_;  // a list: CLI11 keeps pointers into each Config
  const CLI::App* config_keys_ = nullptr;
};

}  // namespace authd
