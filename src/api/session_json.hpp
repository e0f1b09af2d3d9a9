// Sessions as response bodies (interface.md 10.4 and 11.2):
// {"sessions": [...]}, each session's members in alphabetical order, as the
// User's; a session is named by its public id, never by its token.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

// With `current` (GET /sessions), each session also says whether it is the
// caller's own ("current": true|false); without it (the admin view), not.
std::string sessions_body(const std::vector<SessionRecord>& sessions,
                          std::optional<std::string_view> current);

}  // namespace authd
