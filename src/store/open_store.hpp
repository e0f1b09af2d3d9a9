// Chooses the store backend from the --database URL.
#pragma once

#include <memory>
#include <string>

#include "store/store.hpp"

namespace authd {

// "sqlite:PATH" (the embedded default). Throws StoreError for anything else
// or when the database cannot be opened.
std::unique_ptr<Store> open_store(const std::string& database_url);

}  // namespace authd
