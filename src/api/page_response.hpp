// The answers that serve the embedded web files (src/web/*, api/pages.cpp):
// a script or style sheet, and a page under a Content-Security-Policy
// without 'unsafe-inline' that forbids framing and plain form submission.
#pragma once

#include <string_view>

#include "api/api.hpp"

namespace authd {

ApiResponse asset_response(std::string_view name, ContentType content_type);
ApiResponse page_response(std::string_view name);

}  // namespace authd
