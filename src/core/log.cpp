#include "core/log.hpp"

#include <iterator>

#include <unistd.h>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/json_text.hpp"
#include "core/log_sink.hpp"
#include "core/time.hpp"

namespace authd::log {

namespace {

// The sink writes each line as it comes (already a complete JSON object)
// and decides itself when to write: no pattern, no flush_on.
void install_logger(spdlog::level::level_enum level, std::chrono::microseconds window) {
  auto sink = std::make_shared<GroupWriteSink>(STDERR_FILENO, window);
  auto logger = std::make_shared<spdlog::logger>("authd", std::move(sink));
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace

bool init(std::string_view level, std::chrono::microseconds window) {
  spdlog::level::level_enum parsed;
  if (level == "debug") {
    parsed = spdlog::level::debug;
  } else if (level == "info") {
    parsed = spdlog::level::info;
  } else if (level == "warn") {
    parsed = spdlog::level::warn;
  } else if (level == "error") {
    parsed = spdlog::level::err;
  } else {
    return false;
  }
  install_logger(parsed, window);
  return true;
}

void shutdown() {
  // The group's sink writes what it holds and joins its thread as its
  // logger is replaced; whatever logs after this writes at once.
  install_logger(spdlog::default_logger_raw()->level(), std::chrono::microseconds(0));
}

namespace {

// {"time":"...","level":"...","event":"..." without the closing brace: the
// fixed keys come first. Lines are assembled as text rather than as one more
// json object, which cost more than the rest of a GET /me's logging, and in
// a buffer of the thread's own that keeps its capacity from line to line
// (the sink copies the line before log() returns).
std::string& line_start(spdlog::level::level_enum level, std::string_view event) {
  thread_local std::string line;
  line.assign(R"({"time":")");
  append_rfc3339(line, now_millis());
  line += R"(","level":")";
  auto level_name = spdlog::level::to_string_view(level);
  line.append(level_name.data(), level_name.size());
  line += R"(","event":)";
  append_json_string(line, event);
  return line;
}

void emit(spdlog::level::level_enum level, const std::string& line) {
  spdlog::default_logger_raw()->log(level, spdlog::string_view_t(line.data(), line.size()));
}

}  // namespace

bool debug_enabled() { return spdlog::should_log(spdlog::level::debug); }

void write(spdlog::level::level_enum level, std::string_view event, const nlohmann::json& fields) {
  if (!spdlog::should_log(level)) return;
  std::string& line = line_start(level, event);
  if (fields.is_object() && !fields.empty()) {
    std::string rest = fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += ',';
    line.append(rest, 1, std::string::npos);  // rest is {"a":1,...}
  } else {
    line += '}';
  }
  emit(level, line);
}

void request(const RequestLine& request) {
  if (!spdlog::should_log(spdlog::level::info)) return;
  std::string& line = line_start(spdlog::level::info, "request");
  line += R"(,"method":)";
  append_json_string(line, request.method);
  line += R"(,"route":)";
  append_json_string(line, request.route);
  fmt::format_to(std::back_inserter(line), FMT_COMPILE(R"(,"status":{},"latency_ms":{})"),
                 request.status, request.latency_ms);
  line += R"(,"request_id":)";
  append_json_string(line, request.request_id);
  line += R"(,"client":)";
  append_json_string(line, request.client);
  line += '}';
  emit(spdlog::level::info, line);
}

}  // namespace authd::log
