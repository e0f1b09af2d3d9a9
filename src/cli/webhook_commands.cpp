// `authd webhooks dead [--limit N]` and `authd webhooks retry`
// (interface.md 14.4): the deliveries that used up --webhook-max-attempts,
// one JSON object a line (the event as the receiver would get it, its
// attempts, the last error and when it went dead), oldest first; and making
// them all due again, with a fresh count of attempts, for the servers'
// webhook workers to deliver.
#include <iostream>
#include <memory>

#include "auth/events/events.hpp"
#include "cli/chosen_command.hpp"
#include "core/time.hpp"
#include "store/backends/open_store.hpp"

namespace authd {
namespace {

std::unique_ptr<Store> webhook_queue_store(const Config& config) {
  auto store = open_store(config.database, config.store_options());
  store->migrate();
  return store;
}

nlohmann::json dead_delivery_json(const WebhookDeliveryRecord& delivery) {
  return {
      {"event", event_json(delivery.event)},
      {"attempts", delivery.attempts},
      {"lastError", delivery.last_error ? nlohmann::json(*delivery.last_error) : nullptr},
      {"deadAt", delivery.dead_at ? nlohmann::json(format_rfc3339(*delivery.dead_at)) : nullptr}};
}

int list_dead(const Config& config, int limit) {
  auto store = webhook_queue_store(config);
  std::vector<WebhookDeliveryRecord> dead;
  StoreStatus status =
      store->run(Store::Mode::read, [&](Transaction& tx) { dead = tx.webhooks().dead(limit); });
  if (status != StoreStatus::ok) {
    std::cerr << "error: the database failed; run the command again\n";
    return 1;
  }
  for (const WebhookDeliveryRecord& delivery : dead)
    std::cout << dead_delivery_json(delivery).dump() << "\n";
  return 0;
}

int retry_dead(const Config& config) {
  auto store = webhook_queue_store(config);
  std::int64_t retried = 0;
  Millis now = now_millis();
  StoreStatus status = store->run(
      Store::Mode::write, [&](Transaction& tx) { retried = tx.webhooks().retry_dead(now); });
  if (status != StoreStatus::ok) {
    std::cerr << "error: the database failed; run the command again\n";
    return 1;
  }
  std::cout << "retrying " << retried << "\n";
  return 0;
}

}  // namespace

void add_webhook_commands(CLI::App& app, std::list<Config>& configs, ChosenCommand& chosen) {
  auto* webhooks = app.add_subcommand("webhooks", "Dead webhook deliveries: list them, retry them");
  webhooks->require_subcommand(1);

  auto* dead = webhooks->add_subcommand(
      "dead", "Print the dead deliveries (attempts used up), oldest first, as JSON lines");
  Config& dead_config = configs.emplace_back();
  add_database_options(*dead, dead_config);
  // Owned by the parsing that outlives main's parse.
  auto limit = std::make_shared<int>(100);
  dead->add_option("--limit", *limit, "At most this many")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  dead->callback([&chosen, &dead_config, dead, limit] {
    chosen = {&dead_config, dead, [limit](const Config& c) { return list_dead(c, *limit); }};
  });

  auto* retry = webhooks->add_subcommand(
      "retry", "Make every dead delivery due again, with a fresh count of attempts");
  Config& retry_config = configs.emplace_back();
  add_database_options(*retry, retry_config);
  retry->callback([&chosen, &retry_config, retry] { chosen = {&retry_config, retry, retry_dead}; });
}

}  // namespace authd
