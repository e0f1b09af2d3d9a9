// The scale-out store: PostgreSQL through libpq, shared by any number of
// authd instances. A bounded pool of connections, every statement prepared
// with bound parameters, every round trip bounded by a deadline.
//
// SQLite serialises writers; PostgreSQL runs them concurrently at READ
// COMMITTED. Where the domain reads then writes and two instances could
// interleave, the write transactions take row or advisory locks (see
// postgres_store.cpp), so the rules hold across instances exactly as they
// do within one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/postgres/hosts.hpp"
#include "store/store.hpp"

namespace authd::postgres {

class Connection;

class PostgresStore final : public Store {
 public:
  // Connects once, so that a wrong URL or an unreachable server fails at
  // start. `pool_size` bounds the connections this process opens;
  // `timeout` bounds each transaction, from waiting for a connection to its
  // COMMIT. `transaction_pooler`: the URL names a transaction pooler
  // (PgBouncer, interface.md 20.3), so nothing is kept in the session
  // (connection.hpp's ConnectSettings).
  PostgresStore(std::string url, std::size_t pool_size, std::chrono::milliseconds timeout,
                bool transaction_pooler = false);
  ~PostgresStore() override;

  StoreStatus run(Mode mode, const std::function<void(Transaction&)>& work) override;
  void run_together(std::span<TransactionUnit> units) override;
  // The reads share one connection and its round trips (read_pipeline.hpp),
  // 64 at most to a pipeline; called on the connection thread that gathered
  // them (Database::read).
  void run_reads_together(std::span<TransactionUnit> units) override;
  int migrate() override;

 private:
  using Clock = std::chrono::steady_clock;
  class Lease;
  // Each waits at most until `deadline` (TimedOutError after).
  Lease acquire(Clock::time_point deadline);
  std::unique_ptr<Connection> connect(Clock::time_point deadline);
  std::unique_ptr<Connection> connect_to_one_of(Clock::time_point deadline);
  Lease begin(Mode mode, Clock::time_point deadline);
  static void start(Connection& connection, Mode mode);
  void release(std::unique_ptr<Connection> connection);
  void drop_idle();
  bool run_in_one_transaction(std::span<TransactionUnit> units);
  void run_reads_in_one_pipeline(std::span<TransactionUnit> units, Clock::time_point deadline);
  static constexpr std::size_t kMaxReadsPerPipeline = 64;
  static StoreStatus status_of_failure();

  std::string url_;
  std::size_t pool_size_;
  std::chrono::milliseconds timeout_;
  bool transaction_pooler_;
  HostList hosts_;

  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t open_ = 0;  // idle plus leased
  // After a connect that timed out, requests fail at once for a short while
  // instead of each waiting out its own deadline.
  std::chrono::steady_clock::time_point reconnect_after_{};
};

}  // namespace authd::postgres
