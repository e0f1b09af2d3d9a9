// `authd admin-key create --name NAME --scope read|write`, `list` and
// `revoke --name NAME` (interface.md 10.2). `create` prints the key alone on
// standard output, once: it is never stored or shown again. Exit status 2
// for a bad name or scope, 3 for a name in use, 4 for an unknown name.
#include <iostream>
#include <memory>

#include "auth/admin/admin_keys.hpp"
#include "cli/chosen_command.hpp"
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

}  // namespace

void add_admin_key_commands(CLI::App& app, std::list<Config>& configs, ChosenCommand& chosen) {
  auto* keys = app.add_subcommand("admin-key", "Manage the admin API's keys (stored as digests)");
  keys->require_subcommand(1);
  // Owned by the parsing that outlives main's parse: names and scope.
  auto name = std::make_shared<std::string>();
  auto scope = std::make_shared<std::string>();

  auto* create = keys->add_subcommand("create", "Create a key and print it, once");
  Config& create_config = configs.emplace_back();
  add_database_options(*create, create_config);
  create->add_option("--name", *name, "A name for the key: 1 to 64 of A-Z a-z 0-9 . _ -")
      ->required();
  create->add_option("--scope", *scope, "read (GET routes only) or write")->required();
  create->callback([&chosen, &create_config, create, name, scope] {
    chosen = {&create_config, create, [name, scope](const Config& config) {
                auto parsed = parse_admin_scope(*scope);
                if (!parsed) {
                  std::cerr << "error: --scope: read or write\n";
                  return 2;
                }
                auto store = migrated_store(config);
                AdminKeyResult result =
                    create_admin_key(*store, *name, *parsed, cli_event_source(config));
                if (result.kind == AdminKeyResult::Kind::ok) std::cout << result.key << std::endl;
                wipe(result.key);
                return exit_status(result);
              }};
  });

  auto* list = keys->add_subcommand("list", "List the keys: name, scope, created, last used");
  Config& list_config = configs.emplace_back();
  add_database_options(*list, list_config);
  list->callback([&chosen, &list_config, list] {
    chosen = {&list_config, list, [](const Config& config) {
                auto store = migrated_store(config);
                AdminKeyResult result = list_admin_keys(*store);
                for (const AdminKeyRecord& key : result.keys) {
                  std::string created;
                  append_rfc3339(created, key.created_at);
                  // Names are of a plain character set: nothing to escape.
                  std::cout << R"({"name":")" << key.name << R"(","scope":")" << key.scope
                            << R"(","createdAt":")" << created << R"(","lastUsedAt":)"
                            << time_or_null(key.last_used_at) << "}\n";
                }
                return exit_status(result);
              }};
  });

  auto* revoke = keys->add_subcommand("revoke", "Revoke a key by name: refused from then on");
  Config& revoke_config = configs.emplace_back();
  add_database_options(*revoke, revoke_config);
  revoke->add_option("--name", *name, "The key's name")->required();
  revoke->callback([&chosen, &revoke_config, revoke, name] {
    chosen = {&revoke_config, revoke, [name](const Config& config) {
                auto store = migrated_store(config);
                return exit_status(revoke_admin_key(*store, *name, cli_event_source(config)));
              }};
  });
}

}  // namespace authd
