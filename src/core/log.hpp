// Structured logs: one JSON object per line on stderr. Call sites name an
// event and pass fields; they never pass a password, a token or a hash, and
// e-mails go through mask_email().
#pragma once

#include <chrono>
#include <string_view>

#include <spdlog/common.h>
#include <nlohmann/json.hpp>

namespace authd::log {

// "debug", "info", "warn" or "error"; false for anything else. Info and
// debug lines are written in groups at most `window` after they are logged;
// warn and error lines at once (core/log_sink.hpp). Zero: every line at once.
bool init(std::string_view level, std::chrono::microseconds window);

// Writes every line still held and stops the sink's thread; at the end of
// main(). Lines logged afterwards are written at once.
void shutdown();

void write(spdlog::level::level_enum level, std::string_view event, const nlohmann::json& fields);

// The line every answered request writes (event "request"), formatted
// without a json object: it is on every request's path.
struct RequestLine {
  std::string_view method;
  std::string_view route;
  int status = 0;
  double latency_ms = 0;
  std::string_view request_id;
  std::string_view client;
};
void request(const RequestLine& request);

// Whether debug lines are written: a call site on every request's path asks
// first, so that it builds no json object for a line that is dropped.
bool debug_enabled();

inline void debug(std::string_view event, const nlohmann::json& fields = nlohmann::json::object()) {
  write(spdlog::level::debug, event, fields);
}
inline void info(std::string_view event, const nlohmann::json& fields = nlohmann::json::object()) {
  write(spdlog::level::info, event, fields);
}
inline void warn(std::string_view event, const nlohmann::json& fields = nlohmann::json::object()) {
  write(spdlog::level::warn, event, fields);
}
inline void error(std::string_view event, const nlohmann::json& fields = nlohmann::json::object()) {
  write(spdlog::level::err, event, fields);
}

}  // namespace authd::log
