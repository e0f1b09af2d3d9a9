// The query of a request target (GET /admin/users?email=...&limit=...):
// name=value pairs split on '&', each percent-decoded. A '+' stays a '+'
// (it is common in e-mail addresses, and a space is never valid in any
// value authd reads). Malformed escapes, or a name given twice, make the
// whole query invalid (400), so that no value is guessed at.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace authd {

std::optional<std::map<std::string, std::string, std::less<>>> parse_query(std::string_view query);

}  // namespace authd
