#include "cli/command_registry.hpp"

namespace authd {

CLI::App& CommandRegistry::add_group(CLI::App& parent, const std::string& name,
                                     const std::string& help) {
  CLI::App* group = parent.add_subcommand(name, help);
  group->require_subcommand(1);
  return *group;
}

void CommandRegistry::add(CLI::App& parent, Command command) {
  Entry& entry = entries_.emplace_back();
  entry.command = std::move(command);
  entry.app = parent.add_subcommand(entry.command.name, entry.command.help);
  if (entry.command.options) entry.command.options(*entry.app, entry.config);
  if (entry.command.options_are_config_keys) config_keys_ = entry.app;
}

std::optional<CommandRegistry::Invoked> CommandRegistry::invoked() {
  for (Entry& entry : entries_)
    if (entry.app->parsed()) return Invoked{entry.command, *entry.app, entry.config};
  return std::nullopt;
}

}  // namespace authd
