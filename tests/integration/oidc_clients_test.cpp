// interface.md 17.3: the OAuth clients on the management listener, through
// the real binary on either database (scripts/with-postgres.sh runs these
// on PostgreSQL): registration and its rules, the JSON shape, PATCH, DELETE,
// secret rotation, their events; the routes answer whether or not --oidc
// is on. And `authd client ...` on the database a server uses.
#include <gtest/gtest.h>

#include "admin_support.hpp"
#include "harness.hpp"

namespace authd::test {
namespace {

using admin::call;
using admin::create_key;
using admin::expect_error;

// An id no client has.
std::string new_uuid() { return "2f1a7c1e-4b5d-4e6f-8a9b-0c1d2e3f4a5b"; }

std::vector<std::string> with_args(std::vector<std::string> args,
                                   const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const std::regex& secret_pattern() {
  static const std::regex pattern("^authdcs_[A-Za-z0-9_-]{43}$");
  return pattern;
}

nlohmann::json registration(const char* type = "confidential") {
  return {{"name", "Example App"},
          {"type", type},
          {"redirectUris", {"https://app.example.com/cb", "http://127.0.0.1/cb"}}};
}

// POST /admin/clients; 201 expected; the body.
nlohmann::json create_client(const AuthdProcess& authd, const std::string& key,
                             const nlohmann::json& body) {
  HttpResponse res = call(authd, key, "POST", "/admin/clients", body);
  EXPECT_EQ(res.status, 201) << body.dump() << " -> " << res.body;
  if (res.status != 201) return nullptr;
  return res.json();
}

// The events of `type`, newest first.
std::vector<nlohmann::json> events_of(const AuthdProcess& authd, const std::string& key,
                                      const std::string& type) {
  HttpResponse res = call(authd, key, "GET", "/admin/events?type=" + type);
  EXPECT_EQ(res.status, 200) << res.body;
  if (res.status != 200) return {};
  return res.json()["events"].get<std::vector<nlohmann::json>>();
}

// Every member of 17.3, and nothing that holds or names a secret.
void expect_client_shape(const nlohmann::json& client, bool with_secret) {
  const std::set<std::string> members = {
      "clientId",      "name",      "type",       "redirectUris",      "postLogoutRedirectUris",
      "grantTypes",    "scopes",    "firstParty", "accessTokenFormat", "idTokenSignedResponseAlg",
      "introspection", "createdAt", "updatedAt"};
  std::set<std::string> found;
  for (const auto& [member, value] : client.items()) found.insert(member);
  std::set<std::string> expected = members;
  if (with_secret) expected.insert("clientSecret");
  EXPECT_EQ(found, expected) << client;
  EXPECT_TRUE(matches(client.value("clientId", ""), admin::uuid_pattern())) << client;
  EXPECT_EQ(client.value("clientId", "").substr(14, 1), "4") << "a UUIDv4: " << client;
  EXPECT_TRUE(matches(client.value("createdAt", ""), timestamp_pattern())) << client;
  if (with_secret) {
    EXPECT_TRUE(matches(client.value("clientSecret", ""), secret_pattern())) << client;
  }
}

TEST(OidcClients, Interface_17_3_CreateAnswers201WithDefaultsAndTheSecretOnce) {
  AuthdProcess authd(fast_hashing());  // --oidc off: the routes are there all the same
  std::string key = create_key(authd, "ops");
  HttpResponse res = call(authd, key, "POST", "/admin/clients", registration());
  ASSERT_EQ(res.status, 201) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json created = res.json();
  expect_client_shape(created, true);
  const std::string id = created["clientId"];
  EXPECT_EQ(res.header("Location"), "/admin/clients/" + id);
  EXPECT_EQ(created["type"], "confidential");
  EXPECT_EQ(created["grantTypes"], nlohmann::json({"authorization_code", "refresh_token"}));
  EXPECT_EQ(created["scopes"],
            nlohmann::json({"openid", "profile", "email", "phone", "offline_access"}));
  EXPECT_EQ(created["firstParty"], false);
  EXPECT_EQ(created["accessTokenFormat"], "opaque");
  EXPECT_EQ(created["idTokenSignedResponseAlg"], "RS256");
  EXPECT_EQ(created["introspection"], false);
  EXPECT_EQ(created["postLogoutRedirectUris"], nlohmann::json::array());
  EXPECT_EQ(created["createdAt"], created["updatedAt"]);

  // Shown once: GET and the list answer the client without it.
  HttpResponse got = call(authd, key, "GET", "/admin/clients/" + id);
  ASSERT_EQ(got.status, 200) << got.body;
  expect_client_shape(got.json(), false);
  nlohmann::json without = created;
  without.erase("clientSecret");
  EXPECT_EQ(got.json(), without);
  HttpResponse listed = call(authd, key, "GET", "/admin/clients");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.json(), nlohmann::json({{"clients", {without}}}));

  // Stored only as its SHA-256 digest (interface.md 17.3).
  const std::string secret = created["clientSecret"];
  for (const auto& [table, values] : admin::stored_values_in_hex(authd)) {
    for (const std::string& value : values)
      EXPECT_EQ(value.find(admin::hex_of(secret)), std::string::npos) << table;
  }
  EXPECT_EQ(authd.log_text().find(secret), std::string::npos);

  std::vector<nlohmann::json> events = events_of(authd, key, "oauth.client_created");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["actor"], "admin:ops");
  EXPECT_EQ(events[0]["detail"]["clientId"], id);
  EXPECT_EQ(events[0]["detail"]["type"], "confidential");
  EXPECT_EQ(events[0].dump().find(secret), std::string::npos);
}

TEST(OidcClients, Interface_17_3_PublicClientHasNoSecret) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  nlohmann::json body = registration("public");
  body["redirectUris"] = {"com.example.app:/oauth2redirect", "http://[::1]/cb"};
  nlohmann::json created = create_client(authd, key, body);
  expect_client_shape(created, false);
  EXPECT_EQ(created["type"], "public");
  // No secret to rotate.
  HttpResponse rotated =
      call(authd, key, "POST", "/admin/clients/" + created.value("clientId", "") + "/secret");
  expect_error(rotated, 400, "rotate a public client");
}

// Each rule of 17.3 is a 400 of section 1 whose detail names the member.
TEST(OidcClients, Interface_17_3_RefusedRegistrationNamesTheMember) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  struct Case {
    const char* member;
    nlohmann::json change;  // merged into a valid registration
  };
  const Case cases[] = {
      {"name", {{"name", ""}}},
      {"name", {{"name", 7}}},
      {"type", {{"type", "private"}}},
      {"redirectUris", {{"redirectUris", nlohmann::json::array()}}},
      {"redirectUris", {{"redirectUris", "https://app.example.com/cb"}}},
      {"redirectUris", {{"redirectUris", {1}}}},
      {"redirectUris[0]", {{"redirectUris", {"/relative"}}}},
      {"redirectUris[0]", {{"redirectUris", {"https://app.example.com/cb#fragment"}}}},
      {"redirectUris[0]", {{"redirectUris", {"http://app.example.com/cb"}}}},
      {"redirectUris[0]", {{"redirectUris", {"http://localhost:8080/cb"}}}},
      {"redirectUris[0]", {{"redirectUris", {"https://*.example.com/cb"}}}},
      {"redirectUris[0]", {{"redirectUris", {"https://user:pass@app.example.com/cb"}}}},
      {"redirectUris[0]", {{"redirectUris", {"com.example.app:/cb"}}}},  // confidential
      {"redirectUris[0]", {{"redirectUris", {"javascript:alert(1)"}}}},
      {"postLogoutRedirectUris[0]", {{"postLogoutRedirectUris", {"http://example.com/"}}}},
      {"grantTypes", {{"grantTypes", {"implicit"}}}},
      {"grantTypes", {{"grantTypes", nlohmann::json::array()}}},
      {"scopes", {{"scopes", {"openid", "admin"}}}},
      {"scopes", {{"grantTypes", {"authorization_code"}}, {"scopes", {"offline_access"}}}},
      {"firstParty", {{"firstParty", "yes"}}},
      {"accessTokenFormat", {{"accessTokenFormat", "paseto"}}},
      {"idTokenSignedResponseAlg", {{"idTokenSignedResponseAlg", "none"}}},
      {"introspection", {{"introspection", 1}}},
  };
  for (const Case& c : cases) {
    nlohmann::json body = registration();
    body.update(c.change);
    HttpResponse res = call(authd, key, "POST", "/admin/clients", body);
    expect_error(res, 400, body.dump());
    if (res.status != 400) continue;
    std::string detail = res.json().value("detail", "");
    EXPECT_EQ(detail.substr(0, detail.find(':')), c.member) << body.dump() << " -> " << detail;
  }
  nlohmann::json body = registration("public");
  body["grantTypes"] = {"authorization_code", "client_credentials"};
  HttpResponse res = call(authd, key, "POST", "/admin/clients", body);
  expect_error(res, 400, "client_credentials for a public client");
  for (const char* member : {"name", "type", "redirectUris"}) {
    body = registration();
    body.erase(member);
    res = call(authd, key, "POST", "/admin/clients", body);
    expect_error(res, 400, std::string("without ") + member);
    EXPECT_EQ(res.json().value("detail", ""), std::string(member) + ": required");
  }
  // Nothing was registered.
  HttpResponse listed = call(authd, key, "GET", "/admin/clients");
  EXPECT_EQ(listed.json(), nlohmann::json({{"clients", nlohmann::json::array()}}));
  EXPECT_TRUE(events_of(authd, key, "oauth.client_created").empty());
}

TEST(OidcClients, Interface_17_3_PatchChangesOnlyTheMembersSent) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  nlohmann::json created = create_client(authd, key, registration());
  const std::string id = created.value("clientId", "");
  admin::wait_past(created.value("updatedAt", ""));
  HttpResponse res = call(authd, key, "PATCH", "/admin/clients/" + id,
                          nlohmann::json{{"firstParty", true}, {"scopes", {"openid", "email"}}});
  ASSERT_EQ(res.status, 200) << res.body;
  nlohmann::json patched = res.json();
  expect_client_shape(patched, false);
  EXPECT_EQ(patched["firstParty"], true);
  EXPECT_EQ(patched["scopes"], nlohmann::json({"openid", "email"}));
  EXPECT_EQ(patched["redirectUris"], created["redirectUris"]);
  EXPECT_EQ(patched["grantTypes"], created["grantTypes"]);
  EXPECT_EQ(patched["createdAt"], created["createdAt"]);
  EXPECT_GT(patched.value("updatedAt", ""), created.value("updatedAt", ""));
  std::vector<nlohmann::json> events = events_of(authd, key, "oauth.client_updated");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["detail"]["clientId"], id);
  EXPECT_EQ(events[0]["detail"]["changed"], nlohmann::json({"scopes", "firstParty"}));

  // The type cannot change; a rule broken by the change is refused whole.
  res = call(authd, key, "PATCH", "/admin/clients/" + id, nlohmann::json{{"type", "public"}});
  expect_error(res, 400, "type change");
  EXPECT_EQ(res.json().value("detail", "").substr(0, 5), "type:");
  res = call(authd, key, "PATCH", "/admin/clients/" + id,
             nlohmann::json{{"name", "Renamed"}, {"redirectUris", {"https://x.example/#f"}}});
  expect_error(res, 400, "bad redirect URI");
  EXPECT_EQ(call(authd, key, "GET", "/admin/clients/" + id).json(), patched);
  // The secret is untouched by a PATCH: the events stay one.
  EXPECT_EQ(events_of(authd, key, "oauth.client_updated").size(), 1u);
  res = call(authd, key, "PATCH", "/admin/clients/" + new_uuid(), nlohmann::json{{"name", "X"}});
  expect_error(res, 404, "unknown id");
}

// Rotation: a new secret in the answer, once; the previous one's overlap
// is --oidc-secret-overlap (the client authentication tests check that the
// old secret works during it: tests/unit/oidc_client_auth_test.cpp).
TEST(OidcClients, Interface_17_3_RotationAnswersANewSecretAndRecordsItsOverlap) {
  AuthdProcess authd(with_args(fast_hashing(), {"--oidc-secret-overlap", "2h"}));
  std::string key = create_key(authd, "ops");
  nlohmann::json created = create_client(authd, key, registration());
  const std::string id = created.value("clientId", "");
  HttpResponse res = call(authd, key, "POST", "/admin/clients/" + id + "/secret");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.header("Cache-Control"), "no-store");
  nlohmann::json rotated = res.json();
  expect_client_shape(rotated, true);
  EXPECT_NE(rotated["clientSecret"], created["clientSecret"]);
  std::vector<nlohmann::json> events = events_of(authd, key, "oauth.client_secret_rotated");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["detail"]["clientId"], id);
  auto until = admin::parse_timestamp(events[0]["detail"].value("previousSecretUntil", ""));
  auto at = admin::parse_timestamp(events[0].value("time", ""));
  EXPECT_EQ(until - at, std::chrono::hours(2));
  for (const std::string& secret :
       {created.value("clientSecret", ""), rotated.value("clientSecret", "")})
    EXPECT_EQ(events[0].dump().find(secret), std::string::npos);
  expect_error(call(authd, key, "POST", "/admin/clients/" + new_uuid() + "/secret"), 404);
}

// `authd client rotate-secret` takes its overlap from --oidc-secret-overlap
// (or AUTHD_OIDC_SECRET_OVERLAP), as the server does.
TEST(OidcClients, Interface_17_3_CliRotationUsesTheConfiguredOverlap) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  nlohmann::json created = create_client(authd, key, registration());
  const std::string id = created.value("clientId", "");
  std::string out;
  ASSERT_EQ(
      authd.cli({"client", "rotate-secret", "--id", id, "--oidc-secret-overlap", "30m"}, "", &out),
      0)
      << out;
  std::vector<nlohmann::json> events = events_of(authd, key, "oauth.client_secret_rotated");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["actor"], "cli");
  auto until = admin::parse_timestamp(events[0]["detail"].value("previousSecretUntil", ""));
  auto at = admin::parse_timestamp(events[0].value("time", ""));
  EXPECT_EQ(until - at, std::chrono::minutes(30));
  EXPECT_EQ(out.find(created.value("clientSecret", "")), std::string::npos);
}

TEST(OidcClients, Interface_17_3_DeleteAnswers204ThenTheClientIsGone) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  nlohmann::json created = create_client(authd, key, registration());
  const std::string id = created.value("clientId", "");
  HttpResponse res = call(authd, key, "DELETE", "/admin/clients/" + id);
  EXPECT_EQ(res.status, 204) << res.body;
  EXPECT_TRUE(res.body.empty());
  expect_error(call(authd, key, "GET", "/admin/clients/" + id), 404);
  expect_error(call(authd, key, "DELETE", "/admin/clients/" + id), 404);
  std::vector<nlohmann::json> events = events_of(authd, key, "oauth.client_deleted");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["detail"]["clientId"], id);
  EXPECT_EQ(events[0]["actor"], "admin:ops");
  // A type of the trail's (14.2 refuses unknown ones), recorded at the
  // token endpoint (tests/unit/oidc_client_auth_test.cpp).
  EXPECT_TRUE(events_of(authd, key, "oauth.client_auth_failed").empty());
}

// interface.md 10.2 on these routes: a key is needed, a read key only reads,
// and the public listener does not know them.
TEST(OidcClients, Interface_17_3_AdminKeyAndListener) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  std::string reader = create_key(authd, "audit", "read");
  nlohmann::json created = create_client(authd, key, registration());
  const std::string id = created.value("clientId", "");
  admin::expect_credentials_error(call(authd, "", "GET", "/admin/clients"), 401,
                                  admin::kNoCredentials, "no key");
  EXPECT_EQ(call(authd, reader, "GET", "/admin/clients/" + id).status, 200);
  expect_error(call(authd, reader, "POST", "/admin/clients", registration()), 403);
  expect_error(call(authd, reader, "PATCH", "/admin/clients/" + id, nlohmann::json::object()), 403);
  expect_error(call(authd, reader, "DELETE", "/admin/clients/" + id), 403);
  expect_error(call(authd, reader, "POST", "/admin/clients/" + id + "/secret"), 403);
  HttpResponse publicly =
      send_request(authd.port(), "GET", "/admin/clients", {{"Authorization", "Bearer " + key}}, "");
  EXPECT_EQ(publicly.status, 404);
  expect_error(call(authd, key, "POST", "/admin/clients", std::optional<std::string>("{")), 400);
}

// `authd client ...` (interface.md 17.3) on the database of a running
// server: create prints the client with its secret once; the server sees it.
TEST(OidcClients, Interface_17_3_CliCreateListShowUpdateRotateDelete) {
  AuthdProcess authd(fast_hashing());
  std::string key = create_key(authd, "ops");
  std::string out;
  ASSERT_EQ(
      authd.cli({"client", "create", "--name", "CLI App", "--type", "confidential",
                 "--redirect-uri", "https://a.example/cb", "--redirect-uri", "http://127.0.0.1/cb",
                 "--scope", "openid", "--scope", "email", "--first-party", "true"},
                "", &out),
      0)
      << out;
  nlohmann::json created = nlohmann::json::parse(out);
  expect_client_shape(created, true);
  const std::string id = created.value("clientId", "");
  EXPECT_EQ(created["redirectUris"],
            nlohmann::json({"https://a.example/cb", "http://127.0.0.1/cb"}));
  EXPECT_EQ(created["scopes"], nlohmann::json({"openid", "email"}));
  EXPECT_EQ(created["firstParty"], true);
  nlohmann::json served = call(authd, key, "GET", "/admin/clients/" + id).json();
  nlohmann::json without = created;
  without.erase("clientSecret");
  EXPECT_EQ(served, without);

  ASSERT_EQ(authd.cli({"client", "show", "--id", id}, "", &out), 0);
  EXPECT_EQ(nlohmann::json::parse(out), without);
  ASSERT_EQ(authd.cli({"client", "list"}, "", &out), 0);
  EXPECT_EQ(nlohmann::json::parse(out), without);  // one line, one client

  ASSERT_EQ(authd.cli({"client", "update", "--id", id, "--name", "Renamed"}, "", &out), 0) << out;
  nlohmann::json updated = nlohmann::json::parse(out);
  EXPECT_EQ(updated["name"], "Renamed");
  EXPECT_EQ(updated["scopes"], created["scopes"]);
  EXPECT_FALSE(updated.contains("clientSecret"));
  EXPECT_NE(authd.cli({"client", "update", "--id", id, "--type", "public"}, "", &out), 0);

  ASSERT_EQ(authd.cli({"client", "rotate-secret", "--id", id}, "", &out), 0) << out;
  nlohmann::json rotated = nlohmann::json::parse(out);
  EXPECT_TRUE(matches(rotated.value("clientSecret", ""), secret_pattern())) << out;
  EXPECT_NE(rotated["clientSecret"], created["clientSecret"]);

  std::vector<nlohmann::json> events = events_of(authd, key, "oauth.client_created");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["actor"], "cli");

  ASSERT_EQ(authd.cli({"client", "delete", "--id", id}, "", &out), 0);
  EXPECT_EQ(out, "deleted " + id + "\n");
  expect_error(call(authd, key, "GET", "/admin/clients/" + id), 404);
  EXPECT_EQ(authd.cli({"client", "show", "--id", id}, "", &out), 4);
}

TEST(OidcClients, Interface_17_3_CliRefusesABadRegistrationWithExitStatus2) {
  AuthdProcess authd(fast_hashing());
  std::string out;
  std::string err;
  EXPECT_EQ(authd.cli_streams({"client", "create", "--name", "X", "--type", "confidential",
                               "--redirect-uri", "http://localhost/cb"},
                              "", &out, &err),
            2);
  EXPECT_TRUE(out.empty()) << out;
  EXPECT_NE(err.find("redirectUris[0]"), std::string::npos) << err;
  // No --secret option: a secret never comes on the command line.
  EXPECT_NE(authd.cli({"client", "rotate-secret", "--id", new_uuid(), "--secret", "x"}, "", &out),
            0);
}

}  // namespace
}  // namespace authd::test
