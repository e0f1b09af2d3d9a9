// The subcommands of the authd binary, each file's added to the one
// registry (cli/command_registry.hpp) in the order `authd --help` lists
// them. Each command's run returns the process exit code.
#pragma once

#include <cstddef>

#include "auth/events/events.hpp"
#include "cli/command_registry.hpp"
#include "config/config.hpp"

namespace authd {

// `authd serve`'s exit status when a drain ran out of --drain-timeout and
// cut requests off (docs/guide/operations.md, "Stopping"); 0 after a clean drain.
inline constexpr int kExitDrainDropped = 3;

// Keeps the hashing pool's argon2 memory mapped (--argon2-warm-memory,
// crypto/warm_argon2_memory.hpp): linked into the executable alone, so main
// hands it in.
using WarmArgon2Installer = void (*)(std::size_t keep_at_most_kib);

// `authd serve`, `migrate` and `config` (cli/serve_commands.cpp).
void add_serve_commands(CommandRegistry& commands, WarmArgon2Installer install_warm_memory);

// `authd backup PATH` (cli/backup.cpp).
void add_backup_command(CommandRegistry& commands);

// `authd user add|show|...|mfa-reset` and `user import` (interface.md
// 10.6; cli/user_commands.cpp, cli/user_import.cpp).
void add_user_commands(CommandRegistry& commands);
void add_user_import_command(CommandRegistry& commands, CLI::App& user);

// `authd admin-key create|list|revoke` (interface.md 10.2).
void add_admin_key_commands(CommandRegistry& commands);

// `authd operator grant|revoke|list` (interface.md 21.2;
// cli/operator_commands.cpp).
void add_operator_commands(CommandRegistry& commands);

// `authd client create|list|show|update|rotate-secret|delete` (interface.md
// 17.3; cli/client_commands.cpp).
void add_client_commands(CommandRegistry& commands);

// `authd mfa reseal` (interface.md 12.2.3).
void add_mfa_commands(CommandRegistry& commands);

// `authd events [--user-id ID] [--type T] [--since TIME] [--limit N]`
// (interface.md 14.2): the audit trail as JSON lines, newest first.
void add_events_command(CommandRegistry& commands);

// `authd webhooks dead|retry` (interface.md 14.4).
void add_webhook_commands(CommandRegistry& commands);

// `authd oidc rotate-keys [--now]` (interface.md 17.12).
void add_oidc_commands(CommandRegistry& commands);

// Runs `authd serve` until SIGTERM or SIGINT and its drain (cli/serve.cpp).
int run_serve(const Config& config);

// The source of the CLI's events (interface.md 14.1): actor "cli", no
// client. Whether they are queued for webhooks is the database's to say
// (14.4), not the command's flags.
EventSource cli_event_source(const Config& config);

}  // namespace authd
