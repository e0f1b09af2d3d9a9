// `authd admin-key create --name NAME --scope read|write`, `list` and
// `revoke --name NAME` (interface.md 10.2). `create` prints the key alone on
// standard output, once: it is never stored or shown again. Exit status 2
// for a bad name or scope, 3 for a name in use, 4 for an unknown name.
#include <iostream>
#include <memory>

#include "auth/admin/admin_keys.hpp"
#include "cli/commands.hpp"
#include "core/time.hpp"
#include "core/wipe.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

int exit_status(const AdminKeyResult& result) {
  if (result.kind == AdminKeyResult::Kind::ok) return 0;
  std::cerr << "error: " << result.message << "\n";
  switch (result.kind) {
    case AdminKeyResult::Kind::invalid:
      return 2;
    case AdminKeyResult::Kind::exists:
      return 3;
    case AdminKeyResult::Kind::not_found:
      return 4;
    default:
      return 1;
  }
}

std::unique_ptr<Store> migrated_store(const Config& config) {
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  return store;
}

std::string time_or_null(std::optional<Millis> at) {
  if (!at) return "null";
  std::string out = "\"";
  append_rfc3339(out, *at);
  return out + "\"";
}

int create_key(const Config& config, const std::string& name, const std::string& scope) {
  auto parsed = parse_admin_scope(scope);
  if (!parsed) {
    std::cerr << "error: --scope: read or write\n";
    return 2;
  }
  auto store = migrated_store(config);
  AdminKeyResult result = create_admin_key(*store, name, *parsed, cli_event_source(config));
  if (result.kind == AdminKeyResult::Kind::ok) std::cout << result.key << std::endl;
  wipe(result.key);
  return exit_status(result);
}

int list_keys(const Config& config) {
  auto store = migrated_store(config);
  AdminKeyResult result = list_admin_keys(*store);
  for (const AdminKeyRecord& key : result.keys) {
    std::string created;
    append_rfc3339(created, key.created_at);
    // Names are of a plain character set: nothing to escape.
    std::cout << R"({"name":")" << key.name << R"(","scope":")" << key.scope << R"(","createdAt":")"
              << created << R"(","lastUsedAt":)" << time_or_null(key.last_used_at) << "}\n";
  }
  return exit_status(result);
}

}  // namespace

void add_admin_key_commands(CommandRegistry& commands) {
  CLI::App& keys = commands.add_group(commands.root(), "admin-key",
                                      "Manage the admin API's keys (stored as digests)");
  // Owned by the registry, which outlives the parse: names and scope.
  auto name = std::make_shared<std::string>();
  auto scope = std::make_shared<std::string>();
  commands.add(
      keys,
      {.name = "create",
       .help = "Create a key and print it, once",
       .options =
           [name, scope](CLI::App& create, Config& config) {
             add_database_options(create, config);
             create.add_option("--name", *name, "A name for the key: 1 to 64 of A-Z a-z 0-9 . _ -")
                 ->required();
             create.add_option("--scope", *scope, "read (GET routes only) or write")->required();
           },
       .run = [name, scope](const Config& c) { return create_key(c, *name, *scope); }});
  commands.add(keys, {.name = "list",
                      .help = "List the keys: name, scope, created, last used",
                      .options = add_database_options,
                      .run = list_keys});
  commands.add(keys,
               {.name = "revoke",
                .help = "Revoke a key by name: refused from then on",
                .options =
                    [name](CLI::App& revoke, Config& config) {
                      add_database_options(revoke, config);
                      revoke.add_option("--name", *name, "The key's name")->required();
                    },
                .run =
                    [name](const Config& config) {
                      auto store = migrated_store(config);
                      return exit_status(revoke_admin_key(*store, *name, cli_event_source(config)));
                    }});
}

}  // namespace authd
