// `authd serve` (cli/serve.cpp), `authd migrate`, and `authd config`, which
// prints what `authd serve` would run with: the three take the server's
// options, or its database's.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "config/config_file.hpp"
#include "config/upstream_config.hpp"
#include "core/log.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

int run_migrate(const Config& config) {
  auto store = open_store(config.database, config.store_options());
  int version = store->migrate();
  log::info("migrated",
            {{"schema_version", version}, {"database", redact_url_secrets(config.database)}});
  return 0;
}

}  // namespace

void add_serve_commands(CommandRegistry& commands, WarmArgon2Installer install_warm_memory) {
  commands.add({.name = "serve",
                .help = "Run the HTTP server (migrates the database first)",
                .options = add_serve_options,
                .run =
                    [install_warm_memory](const Config& config) {
                      // Before the hashing pool's threads start (--argon2-warm-memory).
                      if (config.argon2_warm_memory) install_warm_memory(config.argon2_memory_kib);
                      return run_serve(config);
                    },
                // The server writes its request lines in groups, each at most 1 ms
                // after it was logged (core/log_sink.hpp); the other commands
                // write each line at once, in step with what they print.
                .log_window = std::chrono::microseconds(1000),
                .options_are_config_keys = true});
  commands.add({.name = "migrate",
                .help = "Apply pending database migrations and exit",
                .options = add_database_options,
                .run = run_migrate});
  // The command's own app, for effective_config: owned by the registry.
  auto shown = std::make_shared<const CLI::App*>(nullptr);
  commands.add({.name = "config",
                .help = "Print the effective configuration of `authd serve` as TOML, secrets "
                        "redacted",
                .options =
                    [shown](CLI::App& command, Config& config) {
                      add_serve_options(command, config);
                      *shown = &command;
                    },
                .run =
                    [shown](const Config& config) {
                      std::cout << effective_config(**shown)
                                << upstream_tables_text(config.upstreams);
                      return 0;
                    },
                .before_logging = true});
}

}  // namespace authd
