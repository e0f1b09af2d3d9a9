// The readings that the server's long-lived parts offer to GET /metrics,
// wired here, in the composition root: metrics/ collects readings and knows
// none of the parts that offer them.
#pragma once

#include "metrics/metrics.hpp"

namespace authd {

class HashingPool;
class OutboxWorker;
class WebhookWorker;

// The hashing pool's size, load and refusals, and the outbox worker's
// delivery counts. Both must outlive `metrics`' last scrape.
void add_server_sources(Metrics& metrics, const HashingPool& hashing, const OutboxWorker& outbox);

// The webhook worker's attempts (interface.md 14.4); zeros when `webhooks`
// is null (no --webhook-url). It must outlive `metrics`' last scrape.
void add_webhook_source(Metrics& metrics, const WebhookWorker* webhooks);

}  // namespace authd
