#include "core/json_text.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace authd {

void append_json_string(std::string& out, std::string_view text) {
  bool plain = std::all_of(text.begin(), text.end(),
                           [](char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += nlohmann::json(std::string(text))
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace authd
