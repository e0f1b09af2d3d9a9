// Chooses the store backend from the --database URL.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "store/store.hpp"

namespace authd {

// Settings of a client/server database (PostgreSQL); SQLite ignores them.
struct StoreOptions {
  std::size_t pool_size = 6;                // connections this process may open
  std::chrono::milliseconds timeout{5000};  // per connect and per round trip
};

// "sqlite:PATH" (the embedded default) or "postgresql://..." (also
// "postgres://"). Throws StoreError for anything else or when the database
// cannot be opened or reached.
std::unique_ptr<Store> open_store(const std::string& database_url,
                                  const StoreOptions& options = {});

}  // namespace authd
