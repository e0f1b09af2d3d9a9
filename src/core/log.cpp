#include "core/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "core/time.hpp"

namespace authd::log {

bool init(std::string_view level) {
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
  auto logger = spdlog::stderr_logger_mt("authd");
  logger->set_pattern("%v");  // the line is already a complete JSON object
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  return true;
}

void write(spdlog::level::level_enum level, std::string_view event, const nlohmann::json& fields) {
  if (!spdlog::should_log(level)) return;
  nlohmann::json line = {{"time", format_rfc3339(now_millis())},
                         {"level", spdlog::level::to_string_view(level).data()},
                         {"event", event}};
  if (fields.is_object()) line.update(fields);
  spdlog::log(level, "{}", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace authd::log
