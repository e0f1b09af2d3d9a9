#include "api/session_json.hpp"

#include "core/json_text.hpp"
#include "core/time.hpp"

namespace authd {
namespace {

void append_member(std::string& out, std::string_view key) {
  out += '"';
  out += key;
  out += "\":";
}

void append_optional_text(std::string& out, const std::optional<std::string>& text) {
  if (text) {
    append_json_string(out, *text);
  } else {
    out += "null";
  }
}

void append_time(std::string& out, Millis at) {
  out += '"';
  append_rfc3339(out, at);  // nothing to escape
  out += '"';
}

}  // namespace

// The User-Agent is the client's text: append_json_string escapes it
// (quotes, backslashes, control characters).
std::string sessions_body(const std::vector<SessionRecord>& sessions,
                          std::optional<std::string_view> current) {
  std::string out = R"({"sessions":[)";
  for (const SessionRecord& session : sessions) {
    if (out.back() == '}') out += ',';
    out += '{';
    append_member(out, "clientAddress");
    append_optional_text(out, session.client_address);
    out += ',';
    append_member(out, "createdAt");
    append_time(out, session.created_at);
    out += ',';
    if (current) {
      append_member(out, "current");
      out += session.public_id == *current ? "true" : "false";
      out += ',';
    }
    append_member(out, "expiresAt");
    append_time(out, session.expires_at);
    out += ',';
    append_member(out, "id");
    append_json_string(out, session.public_id);
    out += ',';
    append_member(out, "userAgent");
    append_optional_text(out, session.user_agent);
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace authd
