// The open connections of one listener, counted per client, with the two
// caps of docs/design/threat-model/denial-of-service.md#connection-limits: a
// total and a per-client cap. A connection past a cap is refused (closed at
// once, unanswered) unless an idle one can make room: a connection that waits
// for its next request costs the least to close, so it goes first, and once the
// total is near its cap (90 %) every new connection closes one idle connection,
// so that the cap is seldom reached while anything is idle.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

namespace authd {

class ConnectionRegistry {
 public:
  struct Limits {
    std::size_t total = 10000;
    std::size_t per_client = 1000;
  };

  // What the registry needs of a connection. `idle` is written by the
  // connection's own thread and read by the accepting one.
  class Tracked {
   public:
    explicit Tracked(std::string client_key) : client_key_(std::move(client_key)) {}
    virtual ~Tracked() = default;
    const std::string& client_key() const { return client_key_; }
    bool idle() const { return idle_.load(std::memory_order_relaxed); }
    void set_idle(bool idle) { idle_.store(idle, std::memory_order_relaxed); }
    // Asks the connection to close if it is still idle when its own thread
    // gets to it (it may have started a request meanwhile). Never blocks.
    virtual void close_if_idle() = 0;
    // Asks the connection, as a drain begins, to close once nothing of it
    // is in flight: at once if idle. Never blocks.
    virtual void drain() { close_if_idle(); }

   private:
    std::string client_key_;
    std::atomic<bool> idle_{true};
  };

  enum class Admission { admitted, refused_total, refused_per_client };

  explicit ConnectionRegistry(Limits limits) : limits_(limits) {}

  // Counts `connection` in, closing an idle one to make room where a cap
  // needs it, or refuses it. `exempt_from_client_cap`: its client key
  // stands for many clients (a trusted proxy), so only the total applies.
  Admission admit(const std::shared_ptr<Tracked>& connection, bool exempt_from_client_cap);
  // Counts it out; true when no connection is left.
  bool forget(const std::shared_ptr<Tracked>& connection);

  // Calls `visit` on every open connection, under the registry's lock.
  void for_each(const std::function<void(const std::shared_ptr<Tracked>&)>& visit);

  std::size_t open() const;
  std::uint64_t refused_total() const { return refused_total_.load(); }
  std::uint64_t refused_per_client() const { return refused_per_client_.load(); }
  std::uint64_t idle_closed() const { return idle_closed_.load(); }

 private:
  using Set = std::set<std::shared_ptr<Tracked>>;
  // Asks one idle connection of `among` to close; false when none is idle.
  bool close_one_idle(const Set& among);
  bool close_one_idle_anywhere();

  const Limits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Set> by_client_;
  std::size_t open_ = 0;
  std::atomic<std::uint64_t> refused_total_{0};
  std::atomic<std::uint64_t> refused_per_client_{0};
  std::atomic<std::uint64_t> idle_closed_{0};
};

}  // namespace authd
