#include "api/query.hpp"

#include <algorithm>

#include "core/percent_encoding.hpp"

namespace authd {

std::optional<std::map<std::string, std::string, std::less<>>> parse_query(std::string_view query) {
  std::map<std::string, std::string, std::less<>> pairs;
  while (!query.empty()) {
    std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    if (pair.empty()) continue;  // "a=1&&b=2", a trailing '&'
    std::size_t equals = pair.find('=');
    auto name = percent_decode(pair.substr(0, equals), /*plus_is_space=*/false);
    auto value = percent_decode(
        equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1),
        /*plus_is_space=*/false);
    if (!name || !value || !pairs.emplace(std::move(*name), std::move(*value)).second)
      return std::nullopt;
  }
  return pairs;
}

}  // namespace authd
