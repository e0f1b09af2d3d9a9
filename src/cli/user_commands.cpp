// `authd user add|show|disable|enable|set-password|verify-email|verify-phone|delete|mfa-reset`.
#include <iostream>
#include <memory>

#include "api/user_json.hpp"
#include "auth/admin/accounts.hpp"
#include "auth/events/notices.hpp"
#include "cli/commands.hpp"
#include "cli/password_input.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

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

int report(const AccountResult& result) {
  if (result.kind != AccountResult::Kind::ok) {
    std::cerr << "error: " << result.message << "\n";
    switch (result.kind) {
      case AccountResult::Kind::invalid:
        return 2;
      case AccountResult::Kind::exists:
        return 3;
      case AccountResult::Kind::not_found:
        return 4;
      default:
        return 1;
    }
  }
  // The API's User shape, plus the one operator-only field.
  nlohmann::json shown = user_json(result.user);
  shown["disabled"] = result.user.disabled;
  std::cout << shown.dump(2) << "\n";
  return 0;
}

void user_options(CLI::App& sub, Config& config, UserAction action, NewAccount& account) {
  add_database_options(sub, config);
  add_password_options(sub, config);
  if (action == UserAction::set_password || action == UserAction::mfa_reset)
    add_notify_option(sub, config);
  sub.add_option("--email", account.email, "The account's e-mail address")->required();
  if (action == UserAction::add) {
    sub.add_option("--display-name", account.display_name, "Display name");
    sub.add_option("--phone", account.phone, "Phone number in E.164 form, e.g. +15551234567");
    sub.add_option("--photo-url", account.photo_url, "URL of a profile photo");
  }
}

int run_user_command(const Config& config, UserAction action, const NewAccount& account) {
  std::string notify_problem;
  if (!parse_notify_list(config.notify, notify_problem)) {
    std::cerr << "error: --notify: " << notify_problem << "\n";
    return 2;
  }
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  PasswordHasher hasher({config.argon2_memory_kib, config.argon2_iterations});
  Accounts accounts(*store, hasher, cli_event_source(config), config.policy.notify);

  auto with_password = [&](auto operation) -> int {
    auto password = read_new_password();
    if (!password) {
      std::cerr << "error: no password given\n";
      return 2;
    }
    return report(operation(*password));
  };

  switch (action) {
    case UserAction::add:
      return with_password([&](std::string& pw) { return accounts.create(account, pw); });
    case UserAction::set_password:
      return with_password(
          [&](std::string& pw) { return accounts.set_password(account.email, pw); });
    case UserAction::show:
      return report(accounts.show(account.email));
    case UserAction::disable:
      return report(accounts.set_disabled(account.email, true));
    case UserAction::enable:
      return report(accounts.set_disabled(account.email, false));
    case UserAction::verify_email:
      return report(accounts.mark_email_verified(account.email));
    case UserAction::verify_phone:
      return report(accounts.mark_phone_verified(account.email));
    case UserAction::mfa_reset:
      return report(accounts.reset_mfa(account.email));
    case UserAction::erase: {
      AccountResult erased = accounts.erase(account.email);
      if (erased.kind != AccountResult::Kind::ok) return report(erased);
      std::cout << "deleted " << erased.user.id << "\n";
      return 0;
    }
  }
  return 1;
}

}  // namespace

EventSource cli_event_source(const Config& /*config*/) {
  EventSource source;
  source.actor = std::string(kActorCli);
  return source;
}

void add_user_commands(CommandRegistry& commands) {
  CLI::App& user = commands.add_group(
      commands.root(), "user", "Manage accounts (passwords are read from stdin or a prompt)");
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
  // Owned by the registry, which outlives the parse.
  auto account = std::make_shared<NewAccount>();
  for (const auto& command : user_commands) {
    UserAction action = command.action;
    commands.add(user, {.name = command.name,
                        .help = command.help,
                        .options =
                            [account, action](CLI::App& sub, Config& config) {
                              user_options(sub, config, action, *account);
                            },
                        .run =
                            [account, action](const Config& config) {
                              return run_user_command(config, action, *account);
                            }});
  }
  add_user_import_command(commands, user);
}

}  // namespace authd
