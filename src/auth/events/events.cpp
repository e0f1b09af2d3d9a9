#include "auth/events/events.hpp"

#include "auth/credentials/email.hpp"
#include "crypto/random.hpp"
#include "store/transaction.hpp"

namespace authd {

std::string admin_actor(std::string_view key_name) {
  std::string actor = "admin:";
  actor += key_name;
  return actor;
}

namespace {

EventRecord new_event(const EventSource& source, std::string_view type,
                      const std::optional<std::string>& user_id, const nlohmann::json& detail,
                      Millis at) {
  EventRecord event;
  event.id = new_uuid_v7(at);
  event.at = at;
  event.type = type;
  event.user_id = user_id;
  event.actor = source.actor;
  if (!source.client_address.empty()) event.client_address = source.client_address;
  event.user_agent = source.user_agent;
  if (!source.request_id.empty()) event.request_id = source.request_id;
  event.detail = detail.is_object() ? detail.dump() : "{}";
  return event;
}

}  // namespace

void record_event(Transaction& tx, const EventSource& source, std::string_view type,
                  const std::optional<std::string>& user_id, const nlohmann::json& detail,
                  Millis at) {
  tx.events().add(new_event(source, type, user_id, detail, at));
}

void record_event_for_address(Transaction& tx, const EventSource& source, std::string_view type,
                              std::string_view canonical_email, nlohmann::json detail, Millis at) {
  detail["email"] = mask_email(canonical_email);
  tx.events().add(new_event(source, type, std::nullopt, detail, at));
}

bool count_throttled(Transaction& tx, std::string_view key, Millis at) {
  return tx.events().count_repeat(key, at);
}

void record_throttled(Transaction& tx, const EventSource& source, std::string_view key,
                      Duration window, const std::optional<std::string>& user_id,
                      nlohmann::json detail, Millis at) {
  detail["reason"] = "throttled";
  detail["count"] = 1;
  Millis until = at + window.count();
  tx.events().append_repeated(new_event(source, "login.failed", user_id, detail, at), key, until,
                              until + kThrottledDeliveryGrace.count());
}

nlohmann::json event_json(const EventRecord& event) {
  nlohmann::json detail = nlohmann::json::parse(event.detail, nullptr, /*allow_exceptions=*/false);
  if (!detail.is_object()) detail = nlohmann::json::object();
  auto or_null = [](const std::optional<std::string>& value) -> nlohmann::json {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  return {{"id", event.id},
          {"time", format_rfc3339(event.at)},
          {"type", event.type},
          {"userId", or_null(event.user_id)},
          {"actor", event.actor},
          {"clientAddress", or_null(event.client_address)},
          {"userAgent", or_null(event.user_agent)},
          {"requestId", or_null(event.request_id)},
          {"detail", std::move(detail)}};
}

}  // namespace authd
