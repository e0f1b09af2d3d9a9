#include "api/errors.hpp"

#include <nlohmann/json.hpp>

namespace authd {

std::string_view status_message(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized Error";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

ApiResponse json_response(int status, std::string body) {
  ApiResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

ApiResponse no_content() {
  ApiResponse response;
  response.status = 204;
  response.content_type = ContentType();
  return response;
}

ApiResponse error_response(int status) {
  nlohmann::json body = {{"code", status}, {"message", status_message(status)}};
  return json_response(status, body.dump());
}

ApiResponse bad_request(std::string_view detail) {
  nlohmann::json body = {{"code", 400}, {"message", status_message(400)}, {"detail", detail}};
  return json_response(400, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

ApiResponse too_many_requests(std::chrono::seconds retry_after) {
  ApiResponse response = error_response(429);
  response.headers.emplace_back("Retry-After", std::to_string(retry_after.count()));
  return response;
}

ApiResponse service_unavailable(std::chrono::seconds retry_after) {
  ApiResponse response = error_response(503);
  response.headers.emplace_back("Retry-After", std::to_string(retry_after.count()));
  return response;
}

}  // namespace authd
