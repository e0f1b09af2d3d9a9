// `authd webhooks dead [--limit N]` and `authd webhooks retry`
// (interface.md 14.4): the deliveries that used up --webhook-max-attempts,
// one JSON object a line (the event as the receiver would get it, its
// attempts, the last error and when it went dead), oldest first; and making
// them all due again, with a fresh count of attempts, for the servers'
// webhook workers to deliver.
#include <iostream>
#include <memory>

#include "auth/events/events.hpp"
#include "cli/commands.hpp"
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

void add_webhook_commands(CommandRegistry& commands) {
  CLI::App& webhooks = commands.add_group(commands.root(), "webhooks",
                                          "Dead webhook deliveries: list them, retry them");
  // Owned by the registry, which outlives the parse.
  auto limit = std::make_shared<int>(100);
  commands.add(webhooks,
               {.name = "dead",
                .help = "Print the dead deliveries (attempts used up), oldest first, as JSON lines",
                .options =
                    [limit](CLI::App& dead, Config& config) {
                      add_database_options(dead, config);
                      dead.add_option("--limit", *limit, "At most this many")
                          ->check(CLI::Range(1, 100000))
                          ->capture_default_str();
                    },
                .run = [limit](const Config& c) { return list_dead(c, *limit); }});
  commands.add(webhooks,
               {.name = "retry",
                .help = "Make every dead delivery due again, with a fresh count of attempts",
                .options = add_database_options,
                .run = retry_dead});
}

}  // namespace authd
