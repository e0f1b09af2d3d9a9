// authd: an authentication service over HTTP + JSON. This file only parses
// the command line (CLI11) and runs the chosen subcommand; every subcommand
// is an entry of one registry (cli/command_registry.hpp).
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command_registry.hpp"
#include "cli/commands.hpp"
#include "config/config_file.hpp"
#include "config/upstream_config.hpp"
#include "core/log.hpp"
#include "core/process.hpp"
#include "crypto/random.hpp"
#include "crypto/warm_argon2_memory.hpp"

namespace authd {
namespace {

// Every subcommand, in the order `authd --help` lists them.
void add_commands(CommandRegistry& commands) {
  add_serve_commands(commands, install_warm_argon2_memory);  // serve, migrate, config
  add_backup_command(commands);
  add_user_commands(commands);
  add_admin_key_commands(commands);
  add_operator_commands(commands);
  add_client_commands(commands);
  add_mfa_commands(commands);
  add_events_command(commands);
  add_webhook_commands(commands);
  add_oidc_commands(commands);
}

// Starts the log and says what weakens the secrets the command holds; false
// when the log cannot start.
bool start_log(const CommandRegistry::Invoked& invoked, bool undumpable, int argc, char** argv) {
  if (!log::init(invoked.config.log_level, invoked.command.log_window)) return false;
  if (!undumpable) log::warn("core_dumps_not_forbidden", {{"error", "prctl or setrlimit failed"}});
  for (const std::string& option : secret_options_in_argv(invoked.app, {argv, argv + argc})) {
    log::warn("secret_on_command_line",
              {{"option", option},
               {"reason",
                "every local user can read the command line: give it in the environment "
                "(AUTHD_*) or the --config file"}});
  }
  return true;
}

int run_logged(const CommandRegistry::Invoked& invoked) {
  int status = 2;
  try {
    init_crypto();
    status = invoked.command.run(invoked.config);
  } catch (const std::exception& e) {
    log::error("fatal", {{"error", e.what()}});
    std::cerr << "authd: " << e.what() << "\n";
    status = 1;
  }
  log::shutdown();
  return status;
}

}  // namespace
}  // namespace authd

int main(int argc, char** argv) {
  using namespace authd;
  // Every command may hold a secret (a password on stdin, one in a flag or
  // the environment): no core file and no same-user tracing, from the start.
  bool undumpable = forbid_core_dumps();
  CLI::App app{"authd: log in, forgotten passwords and log out, over HTTP + JSON"};
  app.require_subcommand(1);
  CommandRegistry commands(app);
  add_commands(commands);

  CLI11_PARSE(app, argc, argv);
  std::optional<CommandRegistry::Invoked> invoked = commands.invoked();
  if (!invoked) return 2;  // not reached: CLI11 requires a command
  if (!invoked->config.config_file.empty()) {
    try {
      apply_config_file(invoked->config.config_file, *commands.config_keys(), invoked->app);
      invoked->config.upstreams = read_upstream_tables(invoked->config.config_file);
    } catch (const ConfigFileError& e) {
      std::cerr << "authd: " << e.what() << "\n";
      return 2;
    }
  }
  if (invoked->command.before_logging) return invoked->command.run(invoked->config);
  if (!start_log(*invoked, undumpable, argc, argv)) return 2;
  return run_logged(*invoked);
}
