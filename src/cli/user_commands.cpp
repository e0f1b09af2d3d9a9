// `authd user add|show|disable|enable|set-password|verify-email|verify-phone|delete|mfa-reset`.
#include <iostream>

#include "api/user_json.hpp"
#include "auth/events/notices.hpp"
#include "cli/commands.hpp"
#include "cli/password_input.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

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

}  // namespace

EventSource cli_event_source(const Config& /*config*/) {
  EventSource source;
  source.actor = std::string(kActorCli);
  return source;
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

}  // namespace authd
