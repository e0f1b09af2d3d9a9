// The hosts of a multi-host --database string (interface.md 20.1), tried
// one at a time by the store rather than by libpq in one go: libpq's
// asynchronous connect has no time limit of its own per host, so a frozen
// host named first (a demoted primary that stopped answering) would hold
// every connect until the whole deadline passed, and the next host would
// never be tried. Each host gets a budget of its own, the host that last
// connected is tried first, and one that failed is no longer, so that
// after a failover only the first connect or two pay for the frozen one.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace authd::postgres {

// libpq keywords and values that narrow the string to one of its hosts,
// given after it (they win over its own).
using HostSettings = std::vector<std::pair<std::string, std::string>>;

class HostList {
 public:
  // A string libpq cannot read, or one with a single host (or host lists
  // libpq would refuse: ports that do not pair with the hosts), is one
  // entry without settings of its own: libpq then does as it always does.
  explicit HostList(const std::string& url);

  std::size_t size() const { return hosts_.size(); }
  const HostSettings& settings(std::size_t index) const { return hosts_[index]; }
  // Every index, the one that connected last first, then the others in
  // the string's order.
  std::vector<std::size_t> order() const;
  void connected(std::size_t index) { preferred_.store(index, std::memory_order_relaxed); }
  // A host that refused or did not answer in time: when it was the one
  // tried first, the next connect starts with the host after it, so that
  // a host eating a whole deadline is not tried first again and again.
  void failed(std::size_t index);
  // The most a connect may spend on one host when the string names
  // several: the string's connect_timeout (seconds, at least 2 as libpq
  // counts it), else kHostBudget.
  std::chrono::milliseconds host_budget() const { return host_budget_; }
  static constexpr std::chrono::milliseconds kHostBudget{2000};

 private:
  std::vector<HostSettings> hosts_;
  std::chrono::milliseconds host_budget_ = kHostBudget;
  std::atomic<std::size_t> preferred_{0};
};

}  // namespace authd::postgres
