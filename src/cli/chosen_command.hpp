// How the subcommands defined outside main.cpp (cli/admin_key_commands.cpp,
// cli/user_import.cpp) tell main which of them was invoked: each registers
// its CLI11 subcommands with a Config of its own, and its callback fills
// this in.
#pragma once

#include <functional>
#include <list>

#include <CLI/CLI.hpp>

#include "config/config.hpp"

namespace authd {

struct ChosenCommand {
  const Config* config = nullptr;
  CLI::App* app = nullptr;
  std::function<int(const Config&)> run;
};

// `authd admin-key create|list|revoke` (interface.md 10.2).
void add_admin_key_commands(CLI::App& app, std::list<Config>& configs, ChosenCommand& chosen);

// `authd user import FILE [--update]` (interface.md 10.6), under `user`.
void add_user_import_command(CLI::App& user, std::list<Config>& configs, ChosenCommand& chosen);

// `authd events [--user-id ID] [--type T] [--since TIME] [--limit N]`
// (interface.md 14.2): the audit trail as JSON lines, newest first.
void add_events_command(CLI::App& app, std::list<Config>& configs, ChosenCommand& chosen);

// `authd mfa reseal` (interface.md 12.2.3).
void add_mfa_commands(CLI::App& app, std::list<Config>& configs, ChosenCommand& chosen);

// `authd webhooks dead|retry` (interface.md 14.4).
void add_webhook_commands(CLI::App& app, std::list<Config>& configs, ChosenCommand& chosen);

}  // namespace authd
