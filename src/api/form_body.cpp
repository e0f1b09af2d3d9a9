#include "api/form_body.hpp"

#include <algorithm>

#include "core/ascii.hpp"

namespace authd {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> form_decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
      continue;
    }
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

bool is_form_content_type(const std::vector<std::string_view>& content_types) {
  if (content_types.size() != 1) return false;
  std::string_view value = content_types.front();
  return equals_ignoring_case(trim_ows(value.substr(0, value.find(';'))),
                              "application/x-www-form-urlencoded");
}

std::optional<std::string> form_decode(std::string_view text) { return form_decoded(text); }

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
    auto name = form_decoded(pair.substr(0, equals));
    auto value = form_decoded(equals == std::string_view::npos ? std::string_view()
                                                               : pair.substr(equals + 1));
    if (!name || !value) return std::nullopt;
    if (value->empty()) continue;  // RFC 6749 3.1: as if omitted
    if (!form.values.emplace(*name, std::move(*value)).second && !form.is_repeated(*name))
      form.repeated.push_back(std::move(*name));
  }
  return form;
}

std::string form_encode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

}  // namespace authd
