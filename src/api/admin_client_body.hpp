// The OAuth client as the admin API and `authd client` show it, and the
// bodies of POST /admin/clients and PATCH /admin/clients/{id} (interface.md
// 17.3), read member by member. Unknown members are ignored and null is
// "not sent" (interface.md 1.7); a member of the wrong type is a problem
// for the 400 that names the member.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/json_body.hpp"
#include "auth/oidc/clients.hpp"

namespace authd {

// clientId, every member of a registration, createdAt, updatedAt; never a
// secret's digest. The caller adds clientSecret where one is shown (the
// 201, a rotation's answer).
nlohmann::ordered_json client_json(const OAuthClientRecord& client);

std::optional<ClientFields> read_client_body(const RequestJson& object, std::string& problem);

}  // namespace authd
