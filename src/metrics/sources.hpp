// The readings that the server's long-lived parts offer to GET /metrics.
#pragma once

#include "metrics/metrics.hpp"

namespace authd {

class HashingPool;
class OutboxWorker;

// The hashing pool's size, load and refusals, and the outbox worker's
// delivery counts. Both must outlive `metrics`' last scrape.
void add_server_sources(Metrics& metrics, const HashingPool& hashing, const OutboxWorker& outbox);

// The route labels of the route table ("/login", ...), each once.
std::vector<std::string> route_labels();

}  // namespace authd
