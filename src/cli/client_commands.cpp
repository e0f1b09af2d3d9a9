// `authd client create|list|show|update|rotate-secret|delete` (interface.md
// 17.3): the OAuth clients, on the database. A client is printed as the
// admin API shows it; `create` (of a confidential client) and
// `rotate-secret` add its new secret, shown this once: it is never given on
// the command line (no --secret), and never stored but as a digest. Exit
// status 2 for a registration that breaks a rule, 4 for an unknown id.
#include <iostream>
#include <memory>

#include "api/admin_client_body.hpp"
#include "auth/oidc/clients.hpp"
#include "cli/commands.hpp"
#include "config/option_groups.hpp"
#include "core/wipe.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

enum class ClientAction { create, list, show, update, rotate_secret, erase };

// What one subcommand's options hold.
struct ClientOptions {
  std::string id;
  ClientFields fields;
};

int report(ClientOutcome& outcome) {
  switch (outcome.kind) {
    case ClientOutcome::Kind::ok:
      break;
    case ClientOutcome::Kind::invalid:
      std::cerr << "error: " << outcome.problem << "\n";
      return 2;
    case ClientOutcome::Kind::not_found:
      std::cerr << "error: no client with this id\n";
      return 4;
    case ClientOutcome::Kind::unavailable:
      std::cerr << "error: the database did not answer\n";
      return 1;
  }
  nlohmann::ordered_json shown = client_json(outcome.client);
  if (!outcome.secret.empty()) shown["clientSecret"] = outcome.secret;
  std::string text = shown.dump(2);
  std::cout << text << std::endl;
  if (!outcome.secret.empty()) {
    wipe(text);
    wipe(shown["clientSecret"].get_ref<std::string&>());
    wipe(outcome.secret);
  }
  return 0;
}

void add_list_option(CLI::App& sub, const std::string& name,
                     std::optional<std::vector<std::string>>& target, const std::string& help) {
  sub.add_option_function<std::vector<std::string>>(
      name, [&target](const std::vector<std::string>& values) { target = values; },
      help + " (repeat the option for several; replaces the whole list)");
}

void add_text_option(CLI::App& sub, const std::string& name, std::optional<std::string>& target,
                     const std::string& help, const std::vector<std::string>& allowed = {}) {
  CLI::Option* option = sub.add_option_function<std::string>(
      name, [&target](const std::string& value) { target = value; }, help);
  if (!allowed.empty()) option->check(CLI::IsMember(allowed));
}

void add_flag_option(CLI::App& sub, const std::string& name, std::optional<bool>& target,
                     const std::string& help) {
  sub.add_option_function<std::string>(
         name, [&target](const std::string& value) { target = value == "true"; }, help)
      ->check(CLI::IsMember({"true", "false"}));
}

void field_options(CLI::App& sub, ClientFields& fields, bool create) {
  add_text_option(sub, "--name", fields.name, "The client's name, shown on the consent page");
  if (create) {
    sub.get_option("--name")->required();
    add_text_option(sub, "--type", fields.type, "confidential (has a secret) or public",
                    {"confidential", "public"});
    sub.get_option("--type")->required();
  }
  add_list_option(sub, "--redirect-uri", fields.redirect_uris, "A redirect URI");
  if (create) sub.get_option("--redirect-uri")->required();
  add_list_option(sub, "--post-logout-redirect-uri", fields.post_logout_redirect_uris,
                  "A post-logout redirect URI");
  add_list_option(sub, "--grant-type", fields.grant_types,
                  "authorization_code, refresh_token or client_credentials");
  add_list_option(sub, "--scope", fields.scopes,
                  "A scope the client may ask for: openid, profile, email, phone, offline_access");
  add_flag_option(sub, "--first-party", fields.first_party,
                  "true: no consent page for this client");
  add_text_option(sub, "--access-token-format", fields.access_token_format, "opaque or jwt",
                  {"opaque", "jwt"});
  add_text_option(sub, "--id-token-alg", fields.id_token_alg, "RS256 or ES256", {"RS256", "ES256"});
  add_flag_option(sub, "--introspection", fields.introspection,
                  "true: the client may introspect tokens");
}

void client_options(CLI::App& sub, Config& config, ClientAction action, ClientOptions& options) {
  add_database_options(sub, config);
  if (action != ClientAction::create && action != ClientAction::list)
    sub.add_option("--id", options.id, "The client's id (its client_id)")->required();
  if (action == ClientAction::create || action == ClientAction::update)
    field_options(sub, options.fields, action == ClientAction::create);
  if (action == ClientAction::rotate_secret)
    add_duration(sub, "--oidc-secret-overlap", config.policy.oidc.secret_overlap,
                 "AUTHD_OIDC_SECRET_OVERLAP", "How long the previous secret keeps working");
}

int list_all(Store& store) {
  ClientList list = list_clients(store);
  if (!list.ok) {
    std::cerr << "error: the database did not answer\n";
    return 1;
  }
  for (const OAuthClientRecord& client : list.clients)
    std::cout << client_json(client).dump() << "\n";
  return 0;
}

int run_client_command(const Config& config, ClientAction action, ClientOptions& options) {
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  const EventSource source = cli_event_source(config);
  ClientOutcome outcome;
  switch (action) {
    case ClientAction::create:
      outcome = create_client(*store, options.fields, source);
      break;
    case ClientAction::list:
      return list_all(*store);
    case ClientAction::show:
      outcome = read_client(*store, options.id);
      break;
    case ClientAction::update:
      outcome = update_client(*store, options.id, options.fields, source);
      break;
    case ClientAction::rotate_secret:
      outcome = rotate_client_secret(*store, options.id, config.policy.oidc.secret_overlap, source);
      break;
    case ClientAction::erase:
      outcome = delete_client(*store, options.id, source);
      if (outcome.kind != ClientOutcome::Kind::ok) break;
      std::cout << "deleted " << outcome.client.id << "\n";
      return 0;
  }
  return report(outcome);
}

}  // namespace

void add_client_commands(CommandRegistry& commands) {
  CLI::App& group =
      commands.add_group(commands.root(), "client", "Manage OAuth clients of the OpenID provider");
  struct ClientCommand {
    const char* name;
    const char* help;
    ClientAction action;
  };
  const ClientCommand client_commands[] = {
      {"create", "Register a client; prints it with its secret (confidential), once",
       ClientAction::create},
      {"list", "List the clients, one JSON object per line", ClientAction::list},
      {"show", "Show a client", ClientAction::show},
      {"update", "Change the members given; the type cannot change", ClientAction::update},
      {"rotate-secret", "Give the client a new secret; prints it, once",
       ClientAction::rotate_secret},
      {"delete", "Delete the client with its codes, tokens and consents", ClientAction::erase},
  };
  for (const auto& command : client_commands) {
    ClientAction action = command.action;
    // Owned by the registry, which outlives the parse; one per subcommand.
    auto options = std::make_shared<ClientOptions>();
    commands.add(group, {.name = command.name,
                         .help = command.help,
                         .options =
                             [options, action](CLI::App& sub, Config& config) {
                               client_options(sub, config, action, *options);
                             },
                         .run =
                             [options, action](const Config& config) {
                               return run_client_command(config, action, *options);
                             }});
  }
}

}  // namespace authd
