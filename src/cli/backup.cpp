// `authd backup PATH`: an online, consistent copy of the SQLite database,
// safe while `authd serve` runs and writes (store/sqlite/backup.hpp).
// Restoring is copying the file back while authd is stopped
// (docs/guide/operations.md).
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "config/config_file.hpp"
#include "core/log.hpp"
#include "store/sqlite/backup.hpp"
#include "store/store.hpp"

namespace authd {
namespace {

int run_backup(const Config& config, const std::string& destination) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (config.database.rfind(kSqlite, 0) != 0 || config.database.size() == kSqlite.size()) {
    std::cerr << "authd: backup copies SQLite databases only (--database sqlite:PATH), not '"
              << redact_url_secrets(config.database)
              << "'. For PostgreSQL use pg_dump or pg_basebackup (docs/guide/operations.md).\n";
    return 2;
  }
  std::string source = config.database.substr(kSqlite.size());
  try {
    int last_percent = -1;
    sqlite::backup_database(source, destination, 256, [&](const sqlite::BackupProgress& p) {
      int percent = p.pages_total > 0 ? 100 * p.pages_copied / p.pages_total : 100;
      if (percent / 25 != last_percent / 25) {
        log::debug("backup_progress",
                   {{"pages_copied", p.pages_copied}, {"pages_total", p.pages_total}});
        last_percent = percent;
      }
    });
  } catch (const StoreError& e) {
    log::error("backup_failed", {{"error", e.what()}});
    std::cerr << "authd: backup failed: " << e.what() << "\n";
    return 1;
  }
  log::info("backup_written", {{"database", config.database}, {"path", destination}});
  return 0;
}

}  // namespace

void add_backup_command(CommandRegistry& commands) {
  auto path = std::make_shared<std::string>();
  commands.add(
      {.name = "backup",
       .help = "Copy the SQLite database to PATH (consistent, while the server runs; mode 0600)",
       .options =
           [path](CLI::App& backup, Config& config) {
             add_database_options(backup, config);
             backup.add_option("path", *path, "Where to write the copy (replaced atomically)")
                 ->required();
           },
       .run = [path](const Config& config) { return run_backup(config, *path); }});
}

}  // namespace authd
