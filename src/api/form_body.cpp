#include "api/form_body.hpp"

#include <algorithm>

#include "core/ascii.hpp"
#include "core/percent_encoding.hpp"

namespace authd {
bool is_form_content_type(const std::vector<std::string_view>& content_types) {
  if (content_types.size() != 1) return false;
  std::string_view value = content_types.front();
  return equals_ignoring_case(trim_ows(value.substr(0, value.find(';'))),
                              "application/x-www-form-urlencoded");
}

std::optional<std::string> form_decode(std::string_view text) {
  return percent_decode(text, /*plus_is_space=*/true);
}

bool FormParameters::is_repeated(std::string_view name) const {
  return std::find(repeated.begin(), repeated.end(), name) != repeated.end();
}

std::optional<FormParameters> parse_form(std::string_view text) {
  FormParameters form;
  while (!text.empty()) {
    std::string_view pair = text.substr(0, text.find('&'));
    text.remove_prefix(std::min(text.size(), pair.size() + 1));
    if (pair.empty()) continue;
    std::size_t equals = pair.find('=');
    auto name = form_decode(pair.substr(0, equals));
    auto value = form_decode(equals == std::string_view::npos ? std::string_view()
                                                              : pair.substr(equals + 1));
    if (!name || !value) return std::nullopt;
    if (value->empty()) continue;  // RFC 6749 3.1: as if omitted
    if (!form.values.emplace(*name, std::move(*value)).second && !form.is_repeated(*name))
      form.repeated.push_back(std::move(*name));
  }
  return form;
}

std::string form_encode(std::string_view value) { return percent_encode(value); }

}  // namespace authd
