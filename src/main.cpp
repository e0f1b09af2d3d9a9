// authd: an authentication service over HTTP + JSON. This file only parses
// the command line (CLI11) and calls the chosen subcommand.
#include <iostream>
#include <list>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/chosen_command.hpp"
#include "cli/commands.hpp"
#include "config/config_file.hpp"
#include "core/log.hpp"
#include "core/process.hpp"
#include "crypto/random.hpp"
#include "crypto/warm_argon2_memory.hpp"
#include "store/store.hpp"

int main(int argc, char** argv) {
  using namespace authd;
  // Every command may hold a secret (a password on stdin, one in a flag or
  // the environment): no core file and no same-user tracing, from the start.
  bool undumpable = forbid_core_dumps();
  // One Config per subcommand: CLI11 applies AUTHD_* variables to the options
  // of every subcommand, invoked or not, so options bound to one shared
  // struct would let the environment override an invoked command's flags.
  // The same holds for the --config file: it is applied to the invoked
  // command's options only (config/config_file.hpp).
  std::list<Config> configs;
  NewAccount account;

  CLI::App app{"authd: log in, forgotten passwords and log out, over HTTP + JSON"};
  app.require_subcommand(1);

  auto* serve = app.add_subcommand("serve", "Run the HTTP server (migrates the database first)");
  Config& serve_config = configs.emplace_back();
  add_serve_options(*serve, serve_config);

  auto* migrate = app.add_subcommand("migrate", "Apply pending database migrations and exit");
  Config& migrate_config = configs.emplace_back();
  add_database_options(*migrate, migrate_config);

  auto* show_config = app.add_subcommand(
      "config", "Print the effective configuration of `authd serve` as TOML, secrets redacted");
  Config& show_config_config = configs.emplace_back();
  add_serve_options(*show_config, show_config_config);

  auto* backup = app.add_subcommand(
      "backup", "Copy the SQLite database to PATH (consistent, while the server runs; mode 0600)");
  Config& backup_config = configs.emplace_back();
  add_database_options(*backup, backup_config);
  std::string backup_path;
  backup->add_option("path", backup_path, "Where to write the copy (replaced atomically)")
      ->required();

  auto* user =
      app.add_subcommand("user", "Manage accounts (passwords are read from stdin or a prompt)");
  user->require_subcommand(1);
  struct UserCommand {
    const char* name;
    const char* help;
    UserAction action;
  };
  const UserCommand user_commands[] = {
      {"add", "Create an account", UserAction::add},
      {"show", "Show an account", UserAction::show},
      {"disable", "Disable an account and revoke its sessions", UserAction::disable},
      {"enable", "Enable a disabled account", UserAction::enable},
      {"set-password", "Set a new password and revoke every session", UserAction::set_password},
      {"verify-email", "Mark the e-mail address verified", UserAction::verify_email},
      {"verify-phone", "Mark the phone number verified", UserAction::verify_phone},
      {"delete", "Erase the account, its sessions, tokens, mail and throttling state",
       UserAction::erase},
      {"mfa-reset", "Remove the account's second factor and its recovery codes",
       UserAction::mfa_reset},
  };
  std::optional<UserAction> chosen;
  const Config* chosen_config = nullptr;
  CLI::App* chosen_app = nullptr;
  for (const auto& command : user_commands) {
    auto* sub = user->add_subcommand(command.name, command.help);
    Config& config = configs.emplace_back();
    add_database_options(*sub, config);
    add_password_options(*sub, config);
    if (command.action == UserAction::set_password || command.action == UserAction::mfa_reset)
      add_notify_option(*sub, config);
    sub->add_option("--email", account.email, "The account's e-mail address")->required();
    if (command.action == UserAction::add) {
      sub->add_option("--display-name", account.display_name, "Display name");
      sub->add_option("--phone", account.phone, "Phone number in E.164 form, e.g. +15551234567");
      sub->add_option("--photo-url", account.photo_url, "URL of a profile photo");
    }
    sub->callback([&chosen, &chosen_config, &chosen_app, &config, sub, action = command.action] {
      chosen = action;
      chosen_config = &config;
      chosen_app = sub;
    });
  }

  ChosenCommand other;  // the subcommands defined in cli/ files of their own
  add_user_import_command(*user, configs, other);
  add_admin_key_commands(app, configs, other);
  add_mfa_commands(app, configs, other);
  add_events_command(app, configs, other);
  add_webhook_commands(app, configs, other);

  CLI11_PARSE(app, argc, argv);
  const Config& config = serve->parsed()         ? serve_config
                         : migrate->parsed()     ? migrate_config
                         : show_config->parsed() ? show_config_config
                         : backup->parsed()      ? backup_config
                         : chosen_config         ? *chosen_config
                         : other.config          ? *other.config
                                                 : serve_config;
  CLI::App* invoked = serve->parsed()         ? serve
                      : migrate->parsed()     ? migrate
                      : show_config->parsed() ? show_config
                      : backup->parsed()      ? backup
                      : chosen_app            ? chosen_app
                      : other.app             ? other.app
                                              : serve;
  if (!config.config_file.empty()) {
    try {
      apply_config_file(config.config_file, *serve, *invoked);
    } catch (const ConfigFileError& e) {
      std::cerr << "authd: " << e.what() << "\n";
      return 2;
    }
  }
  if (show_config->parsed()) {
    std::cout << effective_config(*show_config);
    return 0;
  }
  // The server writes its request lines in groups, each at most 1 ms after
  // it was logged (core/log_sink.hpp); the other commands write each line at
  // once, in step with what they print.
  auto log_window =
      serve->parsed() ? std::chrono::microseconds(1000) : std::chrono::microseconds(0);
  if (!log::init(config.log_level, log_window)) return 2;
  if (!undumpable) log::warn("core_dumps_not_forbidden", {{"error", "prctl or setrlimit failed"}});
  for (const std::string& option : secret_options_in_argv(*invoked, {argv, argv + argc})) {
    log::warn("secret_on_command_line",
              {{"option", option},
               {"reason",
                "every local user can read the command line: give it in the environment "
                "(AUTHD_*) or the --config file"}});
  }

  int status = 2;
  try {
    init_crypto();
    if (serve->parsed()) {
      // Before the hashing pool's threads start (--argon2-warm-memory).
      if (config.argon2_warm_memory) install_warm_argon2_memory(config.argon2_memory_kib);
      status = run_serve(config);
    } else if (migrate->parsed()) {
      status = run_migrate(config);
    } else if (backup->parsed()) {
      status = run_backup(config, backup_path);
    } else if (chosen) {
      status = run_user_command(config, *chosen, account);
    } else if (other.run) {
      status = other.run(config);
    }
  } catch (const std::exception& e) {
    log::error("fatal", {{"error", e.what()}});
    std::cerr << "authd: " << e.what() << "\n";
    status = 1;
  }
  log::shutdown();
  return status;
}
