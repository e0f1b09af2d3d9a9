// The User resource of the seed interface (decisions.md section 2).
#pragma once

#include <nlohmann/json.hpp>

#include "store/records.hpp"

namespace authd {

// All ten fields; absent values are null; `password` is always null.
nlohmann::json user_json(const UserRecord& user);

// Serialises a response body; never throws on odd bytes in stored data.
std::string dump_json(const nlohmann::json& value);

}  // namespace authd
