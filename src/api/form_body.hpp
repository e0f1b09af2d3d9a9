// The parameters of OAuth requests (interface.md 17.1): an
// application/x-www-form-urlencoded body, or an authorization request's
// query, which uses the same encoding. Unlike parse_query (api/query.hpp), a
// '+' is a space (scope=openid+email). A parameter sent without a value is
// treated as omitted (RFC 6749 3.1), and one sent twice is kept apart: the
// standards refuse it, each endpoint with its own error.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace authd {

struct FormParameters {
  std::map<std::string, std::string, std::less<>> values;  // each name's first value
  std::vector<std::string> repeated;                       // names sent more than once

  const std::string* find(std::string_view name) const {
    auto found = values.find(name);
    return found == values.end() ? nullptr : &found->second;
  }
  bool is_repeated(std::string_view name) const;
};

// Exactly one Content-Type, application/x-www-form-urlencoded (any case,
// parameters such as charset allowed).
bool is_form_content_type(const std::vector<std::string_view>& content_types);

// Nothing when an escape is malformed ("%4", "%zz").
std::optional<FormParameters> parse_form(std::string_view text);

// One value of that encoding decoded ('+' a space, %XX a byte); nothing
// when an escape is malformed. Also the encoding of HTTP Basic client
// credentials (RFC 6749 2.3.1).
std::optional<std::string> form_decode(std::string_view text);

// One value in that encoding (for redirect URIs' queries): unreserved
// characters as they are, every other byte as %XX.
std::string form_encode(std::string_view value);

}  // namespace authd
