// The subcommands of the authd binary. Each returns the process exit code.
#pragma once

#include <optional>
#include <string>

#include "auth/admin/accounts.hpp"
#include "config/config.hpp"

namespace authd {

// `authd serve`'s exit status when a drain ran out of --drain-timeout and
// cut requests off (docs/guide/operations.md, "Stopping"); 0 after a clean drain.
inline constexpr int kExitDrainDropped = 3;

int run_serve(const Config& config);
int run_migrate(const Config& config);
// Copies the SQLite database to `path` while the server may run.
int run_backup(const Config& config, const std::string& path);

enum class UserAction {
  add,
  mfa_reset,
  show,
  disable,
  enable,
  set_password,
  verify_email,
  verify_phone,
  erase,
};
int run_user_command(const Config& config, UserAction action, const NewAccount& account);

// The source of the CLI's events (interface.md 14.1): actor "cli", no
// client. Whether they are queued for webhooks is the database's to say
// (14.4), not the command's flags.
EventSource cli_event_source(const Config& config);

}  // namespace authd
