#include "api/admin_client_body.hpp"

#include "core/time.hpp"

namespace authd {
namespace {

using Value = RequestJson::value_t;

// The member `name`, or null when absent or null (not sent); `problem` set
// when it is there with another type than `type`.
const RequestJson* member(const RequestJson& object, const char* name, Value type,
                          const char* expected, std::string& problem) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  if (it->type() != type && problem.empty()) problem = std::string(name) + ": must be " + expected;
  return problem.empty() ? &*it : nullptr;
}

std::string plain(const RequestJson& value) {
  const auto& text = value.get_ref<const RequestJson::string_t&>();
  return {text.begin(), text.end()};
}

void read_text(const RequestJson& object, const char* name, std::optional<std::string>& out,
               std::string& problem) {
  if (const RequestJson* found = member(object, name, Value::string, "a string", problem))
    out = plain(*found);
}

void read_flag(const RequestJson& object, const char* name, std::optional<bool>& out,
               std::string& problem) {
  if (const RequestJson* found = member(object, name, Value::boolean, "a boolean", problem))
    out = found->get<bool>();
}

void read_list(const RequestJson& object, const char* name,
               std::optional<std::vector<std::string>>& out, std::string& problem) {
  const RequestJson* found = member(object, name, Value::array, "an array of strings", problem);
  if (!found) return;
  std::vector<std::string> list;
  for (const RequestJson& entry : *found) {
    if (!entry.is_string()) {
      problem = std::string(name) + ": must be an array of strings";
      return;
    }
    list.push_back(plain(entry));
  }
  out = std::move(list);
}

}  // namespace

nlohmann::ordered_json client_json(const OAuthClientRecord& client) {
  return {{"clientId", client.id},
          {"name", client.name},
          {"type", client.confidential ? "confidential" : "public"},
          {"redirectUris", client.redirect_uris},
          {"postLogoutRedirectUris", client.post_logout_redirect_uris},
          {"grantTypes", client.grant_types},
          {"scopes", client.scopes},
          {"firstParty", client.first_party},
          {"accessTokenFormat", client.access_token_format},
          {"idTokenSignedResponseAlg", client.id_token_alg},
          {"introspection", client.introspection},
          {"createdAt", format_rfc3339(client.created_at)},
          {"updatedAt", format_rfc3339(client.updated_at)}};
}

std::optional<ClientFields> read_client_body(const RequestJson& object, std::string& problem) {
  ClientFields fields;
  read_text(object, "name", fields.name, problem);
  read_text(object, "type", fields.type, problem);
  read_list(object, "redirectUris", fields.redirect_uris, problem);
  read_list(object, "postLogoutRedirectUris", fields.post_logout_redirect_uris, problem);
  read_list(object, "grantTypes", fields.grant_types, problem);
  read_list(object, "scopes", fields.scopes, problem);
  read_flag(object, "firstParty", fields.first_party, problem);
  read_text(object, "accessTokenFormat", fields.access_token_format, problem);
  read_text(object, "idTokenSignedResponseAlg", fields.id_token_alg, problem);
  read_flag(object, "introspection", fields.introspection, problem);
  if (!problem.empty()) return std::nullopt;
  return fields;
}

}  // namespace authd
