// `authd operator grant --email E --scope read|write`, `revoke --email E`
// and `list` (interface.md 21.2): which accounts may sign in to the
// operator's console. Exit status 2 for a bad e-mail or scope, 4 for an
// unknown account (or, for revoke, one without a grant).
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "auth/console/operators.hpp"
#include "auth/credentials/email.hpp"
#include "cli/commands.hpp"
#include "core/time.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

int operator_exit_status(const OperatorResult& result) {
  if (result.kind == OperatorResult::Kind::ok) return 0;
  std::cerr << "error: " << result.message << "\n";
  return result.kind == OperatorResult::Kind::not_found ? 4 : 1;
}

std::unique_ptr<Store> operator_store(const Config& config) {
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  return store;
}

int operator_grant(const Config& config, const std::string& email, const std::string& scope) {
  auto parsed = parse_admin_scope(scope);
  if (!parsed) {
    std::cerr << "error: --scope: read or write\n";
    return 2;
  }
  if (!is_valid_email(email)) {
    std::cerr << "error: --email: not a valid address\n";
    return 2;
  }
  auto store = operator_store(config);
  return operator_exit_status(
      grant_operator(*store, canonical_email(email), *parsed, cli_event_source(config)));
}

int operator_revoke(const Config& config, const std::string& email) {
  if (!is_valid_email(email)) {
    std::cerr << "error: --email: not a valid address\n";
    return 2;
  }
  auto store = operator_store(config);
  return operator_exit_status(
      revoke_operator(*store, canonical_email(email), cli_event_source(config)));
}

int operator_list(const Config& config) {
  auto store = operator_store(config);
  OperatorResult result = list_operators(*store);
  for (const OperatorListing& entry : result.listing) {
    nlohmann::json line = {{"email", entry.email},
                           {"userId", entry.grant.user_id},
                           {"scope", entry.grant.scope},
                           {"grantedAt", format_rfc3339(entry.grant.granted_at)},
                           {"grantedBy", entry.grant.granted_by}};
    std::cout << line.dump() << "\n";
  }
  return operator_exit_status(result);
}

}  // namespace

void add_operator_commands(CommandRegistry& commands) {
  CLI::App& group = commands.add_group(
      commands.root(), "operator", "Grant or revoke the operator's console (interface.md 21.2)");
  auto email = std::make_shared<std::string>();
  auto scope = std::make_shared<std::string>();
  commands.add(
      group,
      {.name = "grant",
       .help = "Let an account sign in to the console, with a scope",
       .options =
           [email, scope](CLI::App& app, Config& config) {
             add_database_options(app, config);
             app.add_option("--email", *email, "The account's e-mail")->required();
             app.add_option("--scope", *scope, "read (look only) or write")->required();
           },
       .run = [email, scope](const Config& c) { return operator_grant(c, *email, *scope); }});
  commands.add(group, {.name = "revoke",
                       .help = "Withdraw an account's console grant; its console sessions end",
                       .options =
                           [email](CLI::App& app, Config& config) {
                             add_database_options(app, config);
                             app.add_option("--email", *email, "The account's e-mail")->required();
                           },
                       .run = [email](const Config& c) { return operator_revoke(c, *email); }});
  commands.add(group, {.name = "list",
                       .help = "List the operators: e-mail, scope, granted when and by whom",
                       .options = add_database_options,
                       .run = operator_list});
}

}  // namespace authd
