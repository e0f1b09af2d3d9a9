#include "api/query.hpp"

#include <algorithm>

namespace authd {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;  // "%" or "%4" at the end
    int high = hex_value(text[i + 1]);
    int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

}  // namespace

std::optional<std::map<std::string, std::string, std::less<>>> parse_query(std::string_view query) {
  std::map<std::string, std::string, std::less<>> pairs;
  while (!query.empty()) {
    std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    if (pair.empty()) continue;  // "a=1&&b=2", a trailing '&'
    std::size_t equals = pair.find('=');
    auto name = percent_decoded(pair.substr(0, equals));
    auto value = percent_decoded(equals == std::string_view::npos ? std::string_view()
                                                                  : pair.substr(equals + 1));
    if (!name || !value || !pairs.emplace(std::move(*name), std::move(*value)).second)
      return std::nullopt;
  }
  return pairs;
}

}  // namespace authd
