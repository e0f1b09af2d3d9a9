// The web page's files (src/web/reset.html, reset.js, reset.css), compiled
// into the binary at build time (cmake/web_assets.cmake): no file is read
// at run time.
#pragma once

#include <optional>
#include <string_view>

namespace authd::web {

// The content of the embedded file with this base name, e.g. "reset.js".
std::optional<std::string_view> asset(std::string_view name);

}  // namespace authd::web
