#include "store/postgres/params.hpp"

#include <sodium.h>

#include <utility>

namespace authd::postgres {

Params& Params::add(std::optional<std::string> value, int format) {
  lengths_.push_back(value ? static_cast<int>(value->size()) : 0);
  formats_.push_back(format);
  values_.push_back(std::move(value));
  return *this;
}

Params& Params::text(std::string_view value) { return add(std::string(value), 0); }
Params& Params::text(const std::optional<std::string>& value) { return add(value, 0); }
Params& Params::integer(std::int64_t value) { return add(std::to_string(value), 0); }
Params& Params::integer(const std::optional<std::int64_t>& value) {
  return add(value ? std::optional<std::string>(std::to_string(*value)) : std::nullopt, 0);
}
Params& Params::boolean(bool value) { return add(value ? "true" : "false", 0); }
// Array input syntax (PostgreSQL manual, 8.15.2): every element in double
// quotes, with a backslash before each double quote and backslash in it;
// NULL, unquoted, for a missing one.
namespace {
void append_element(std::string& literal, const std::optional<std::string>& value) {
  if (literal.size() > 1) literal += ',';
  if (!value) {
    literal += "NULL";
    return;
  }
  literal += '"';
  for (char c : *value) {
    if (c == '"' || c == '\\') literal += '\\';
    literal += c;
  }
  literal += '"';
}
}  // namespace

Params& Params::text_array(std::span<const std::string> values) {
  std::string literal = "{";
  for (const std::string& value : values) append_element(literal, value);
  literal += '}';
  return add(std::move(literal), 0);
}
Params& Params::text_array(std::span<const std::optional<std::string>> values) {
  std::string literal = "{";
  for (const std::optional<std::string>& value : values) append_element(literal, value);
  literal += '}';
  return add(std::move(literal), 0);
}
// Each element "\\x" and the hex digits: the array's quoting turns the two
// backslashes into one, and bytea reads "\x..." as hex (manual, 8.4.1).
Params& Params::digest_array(std::span<const Sha256Digest> values) {
  std::string literal = "{";
  char hex[2 * std::tuple_size_v<Sha256Digest> + 1];
  for (const Sha256Digest& value : values) {
    if (literal.size() > 1) literal += ',';
    sodium_bin2hex(hex, sizeof hex, value.data(), value.size());
    literal += "\"\\\\x";
    literal += hex;
    literal += '"';
  }
  literal += '}';
  return add(std::move(literal), 0);
}
Params& Params::digest(const Sha256Digest& value) {
  return add(std::string(value.begin(), value.end()), 1);
}

Params& Params::digest(const std::optional<Sha256Digest>& value) {
  if (value) return digest(*value);
  return add(std::nullopt, 1);
}

std::vector<const char*> Params::pointers() const {
  std::vector<const char*> pointers;
  pointers.reserve(values_.size());
  for (const auto& value : values_) pointers.push_back(value ? value->data() : nullptr);
  return pointers;
}

}  // namespace authd::postgres
