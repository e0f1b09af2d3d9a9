// Error responses in the contract's shape {"code": status, "message": text}
// (interface.md 1.3). Only a 400 may carry a "detail".
#pragma once

#include <chrono>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "api/api.hpp"

namespace authd {

std::string_view status_message(int status);

ApiResponse error_response(int status);
ApiResponse bad_request(std::string_view detail);
ApiResponse too_many_requests(std::chrono::seconds retry_after);
ApiResponse service_unavailable(std::chrono::seconds retry_after);
ApiResponse json_response(int status, std::string body);
ApiResponse no_content();  // 204: no body, no Content-Type

// 503 for a request the hashing pool had no room for, held to be written
// about the second its Retry-After names later (api/hashing_busy.cpp says
// why).
ApiResponse hashing_busy();

}  // namespace authd
