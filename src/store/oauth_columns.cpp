// The OpenID provider's lists as the store keeps them: JSON arrays of
// strings, the same text on both backends.
#include "store/oauth_columns.hpp"

#include <nlohmann/json.hpp>

#include "store/store.hpp"

namespace authd {

std::string json_list(const std::vector<std::string>& items) {
  return nlohmann::json(items).dump();
}

std::vector<std::string> parse_json_list(std::string_view text) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) throw StoreError("a stored list is not a JSON array");
  std::vector<std::string> items;
  items.reserve(parsed.size());
  for (const nlohmann::json& item : parsed) {
    if (!item.is_string()) throw StoreError("a stored list holds something else than strings");
    items.push_back(item.get<std::string>());
  }
  return items;
}

}  // namespace authd
