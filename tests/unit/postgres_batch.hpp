// Runs units as one batch on a connection of the test's own, as
// PostgresStore does (store/postgres/read_pipeline.hpp): the tests of what a
// batch sends, and of the plans its statements get.
#pragma once

#include <functional>
#include <vector>

#include "store/postgres/connection.hpp"
#include "store/postgres/read_pipeline.hpp"
#include "store/postgres/transaction.hpp"

namespace authd::test {

// Each of `works` as a unit of one batch: a batch of reads, or with
// `one_transaction` a batch of logouts inside a transaction the caller
// began (PostgresStore::run_together). Each unit's outcome.
inline std::vector<TransactionUnit> run_as_batch(
    postgres::Connection& connection, std::vector<std::function<void(Transaction&)>>& works,
    bool one_transaction) {
  std::vector<TransactionUnit> units(works.size());
  for (std::size_t i = 0; i < units.size(); ++i) units[i].work = &works[i];
  postgres::run_in_one_pipeline(connection, units, one_transaction,
                                [&connection, one_transaction](TransactionUnit& unit) {
                                  postgres::PostgresTransaction tx(connection, one_transaction);
                                  (*unit.work)(tx);
                                  unit.status = StoreStatus::ok;
                                });
  return units;
}

}  // namespace authd::test
