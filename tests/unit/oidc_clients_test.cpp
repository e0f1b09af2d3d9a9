// interface.md 17.3: the rules of an OAuth client's registration, its
// redirect URIs and how a requested one is matched (RFC 9700 2.1, RFC 8252
// 7.3 and 8.3), and 17.7: the client credentials of a token request (HTTP
// Basic as RFC 6749 2.3.1 encodes it, the form body, both at once).
#include <gtest/gtest.h>

#include <sodium.h>

#include <string>
#include <vector>

#include "api/form_body.hpp"
#include "api/oauth_client_credentials.hpp"
#include "auth/oidc/client_auth.hpp"
#include "auth/oidc/clients.hpp"
#include "crypto/random.hpp"

namespace authd {
namespace {

OAuthClientRecord client_with(std::vector<std::string> uris) {
  OAuthClientRecord client;
  client.redirect_uris = std::move(uris);
  return client;
}

TEST(OidcRedirectUris, Interface_17_3_RedirectUriMustMatchExactly) {
  OAuthClientRecord client = client_with({"https://app.example.com/cb?x=1"});
  EXPECT_TRUE(redirect_uri_matches(client, "https://app.example.com/cb?x=1"));
  for (const char* other :
       {"https://app.example.com/cb", "https://app.example.com/cb?x=1&y=2",
        "https://app.example.com/cb?x=1#f", "https://app.example.com/cb/?x=1",
        "https://app.example.com/cb/../cb?x=1", "HTTPS://app.example.com/cb?x=1",
        "https://APP.example.com/cb?x=1", "https://app.example.com:443/cb?x=1",
        "https://app.example.com.evil.com/cb?x=1", "https://app.example.com/cb?x=1 ", ""})
    EXPECT_FALSE(redirect_uri_matches(client, other)) << other;
}

TEST(OidcRedirectUris, Interface_17_3_NeverByPrefixOrWildcard) {
  OAuthClientRecord client = client_with({"https://app.example.com/"});
  EXPECT_FALSE(redirect_uri_matches(client, "https://app.example.com/callback"));
  EXPECT_FALSE(redirect_uri_matches(client, "https://app.example.com"));
  EXPECT_FALSE(redirect_uri_matches(client_with({}), "https://app.example.com/"));
}

// RFC 8252 7.3: any port for a registered loopback IP URI, all else equal.
TEST(OidcRedirectUris, Interface_17_3_LoopbackUriMatchesAnyPort) {
  OAuthClientRecord v4 = client_with({"http://127.0.0.1/cb"});
  EXPECT_TRUE(redirect_uri_matches(v4, "http://127.0.0.1/cb"));
  EXPECT_TRUE(redirect_uri_matches(v4, "http://127.0.0.1:51004/cb"));
  EXPECT_TRUE(redirect_uri_matches(v4, "http://127.0.0.1:1/cb"));
  EXPECT_TRUE(
      redirect_uri_matches(client_with({"http://127.0.0.1:8080/cb"}), "http://127.0.0.1:9090/cb"));
  OAuthClientRecord v6 = client_with({"http://[::1]/cb?a=b"});
  EXPECT_TRUE(redirect_uri_matches(v6, "http://[::1]:65535/cb?a=b"));
  for (const char* other :
       {"http://127.0.0.1:51004/cb2", "http://127.0.0.1:51004/", "http://127.0.0.1:0/cb",
        "http://127.0.0.1:65536/cb", "http://127.0.0.1:/cb", "http://127.0.0.1:80x/cb",
        "http://127.0.0.1:80@evil.example/cb", "http://127.0.0.1.evil.example/cb",
        "http://localhost:51004/cb", "https://127.0.0.1:51004/cb", "http://[::1]:51004/cb",
        "http://127.0.0.1:51004/cb#x"})
    EXPECT_FALSE(redirect_uri_matches(v4, other)) << other;
  EXPECT_FALSE(redirect_uri_matches(v6, "http://[::1]:8080/cb"));
  // Not for https, nor for localhost (RFC 8252 8.3: not a loopback IP).
  EXPECT_FALSE(
      redirect_uri_matches(client_with({"https://127.0.0.1/cb"}), "https://127.0.0.1:8443/cb"));
  EXPECT_FALSE(
      redirect_uri_matches(client_with({"http://localhost/cb"}), "http://localhost:8080/cb"));
}

TEST(OidcRedirectUris, Interface_17_3_RegistrationRules) {
  for (const char* good : {"https://app.example.com/cb", "https://app.example.com:8443/cb?x=1",
                           "https://[2001:db8::1]/cb", "http://127.0.0.1/cb",
                           "http://127.0.0.1:8080/cb", "http://[::1]/cb", "http://127.0.0.1"})
    EXPECT_EQ(redirect_uri_problem(good, true), std::nullopt) << good;
  for (const char* bad : {"",
                          "/cb",
                          "app.example.com/cb",
                          "https://app.example.com/cb#frag",
                          "https://app.example.com/cb#",
                          "https://*.example.com/cb",
                          "https://app.example.com/*",
                          "https://user:pass@app.example.com/cb",
                          "https://user@app.example.com/cb",
                          "http://app.example.com/cb",
                          "http://localhost/cb",
                          "http://localhost:8080/cb",
                          "http://127.0.0.2/cb",
                          "http://127.0.0.1.example.com/cb",
                          "http://127.0.0.1:99999/cb",
                          "https:///cb",
                          "https:/cb",
                          "https://app.example.com:port/cb",
                          "https://app.example.com/c b",
                          "HTTPS://app.example.com/cb",
                          "javascript:alert(1)",
                          "data:text/html,x",
                          "myapp:/cb",
                          "com.example.app:/cb"})
    EXPECT_NE(redirect_uri_problem(bad, true), std::nullopt) << bad;
  EXPECT_NE(redirect_uri_problem("https://a.example/" + std::string(2048, 'a'), true),
            std::nullopt);
}

// RFC 8252 7.1: private-use schemes are for native apps, i.e. public clients.
TEST(OidcRedirectUris, Interface_17_3_PrivateUseSchemeOnlyForPublicClients) {
  EXPECT_EQ(redirect_uri_problem("com.example.app:/oauth2redirect", false), std::nullopt);
  EXPECT_EQ(redirect_uri_problem("com.example.app://cb", false), std::nullopt);
  EXPECT_NE(redirect_uri_problem("com.example.app:/oauth2redirect", true), std::nullopt);
  EXPECT_NE(redirect_uri_problem("exampleapp:/oauth2redirect", false), std::nullopt);
  EXPECT_NE(redirect_uri_problem("com.example.app://user@host/cb", false), std::nullopt);
}

ClientFields minimal(const char* type) {
  ClientFields fields;
  fields.name = "Example";
  fields.type = type;
  fields.redirect_uris = std::vector<std::string>{"https://app.example.com/cb"};
  return fields;
}

TEST(OidcClientRules, Interface_17_3_Defaults) {
  std::string problem;
  std::optional<OAuthClientRecord> client = new_client(minimal("confidential"), 5, problem);
  ASSERT_TRUE(client) << problem;
  EXPECT_TRUE(client->confidential);
  EXPECT_EQ(client->grant_types, (std::vector<std::string>{"authorization_code", "refresh_token"}));
  EXPECT_EQ(client->scopes,
            (std::vector<std::string>{"openid", "profile", "email", "phone", "offline_access"}));
  EXPECT_FALSE(client->first_party);
  EXPECT_EQ(client->access_token_format, "opaque");
  EXPECT_EQ(client->id_token_alg, "RS256");
  EXPECT_FALSE(client->introspection);
  EXPECT_TRUE(client->post_logout_redirect_uris.empty());
  EXPECT_EQ(client->created_at, 5);
  // Without refresh_token, the default scopes leave offline_access out.
  ClientFields no_refresh = minimal("public");
  no_refresh.grant_types = std::vector<std::string>{"authorization_code"};
  client = new_client(no_refresh, 5, problem);
  ASSERT_TRUE(client) << problem;
  EXPECT_EQ(client->scopes, (std::vector<std::string>{"openid", "profile", "email", "phone"}));
}

// Each refusal names the member (a 400's detail, interface.md 1.3).
TEST(OidcClientRules, Interface_17_3_RefusalsNameTheMember) {
  struct Case {
    const char* member;
    void (*change)(ClientFields&);
  };
  const Case cases[] = {
      {"name", [](ClientFields& f) { f.name.reset(); }},
      {"name", [](ClientFields& f) { f.name = ""; }},
      {"type", [](ClientFields& f) { f.type.reset(); }},
      {"type", [](ClientFields& f) { f.type = "secret"; }},
      {"redirectUris", [](ClientFields& f) { f.redirect_uris.reset(); }},
      {"redirectUris", [](ClientFields& f) { f.redirect_uris->clear(); }},
      // Whole lists, not push_back of a literal: GCC 12's -Warray-bounds
      // misfires on the latter, depending on the unity batch.
      {"redirectUris[1]",
       [](ClientFields& f) {
         f.redirect_uris =
             std::vector<std::string>{"https://app.example.com/cb", "https://a.example/#x"};
       }},
      {"redirectUris[1]",
       [](ClientFields& f) {
         f.redirect_uris =
             std::vector<std::string>{"https://app.example.com/cb", "https://app.example.com/cb"};
       }},
      {"postLogoutRedirectUris[0]",
       [](ClientFields& f) {
         f.post_logout_redirect_uris = std::vector<std::string>{"http://localhost/"};
       }},
      {"grantTypes", [](ClientFields& f) { f.grant_types = std::vector<std::string>{"password"}; }},
      {"grantTypes", [](ClientFields& f) { f.grant_types = std::vector<std::string>{}; }},
      {"grantTypes",
       [](ClientFields& f) {
         f.grant_types = std::vector<std::string>{"authorization_code", "authorization_code"};
       }},
      {"scopes",
       [](ClientFields& f) {
         f.scopes = std::vector<std::string>{"openid", "admin"};
       }},
      {"scopes",
       [](ClientFields& f) {
         f.grant_types = std::vector<std::string>{"authorization_code"};
         f.scopes = std::vector<std::string>{"openid", "offline_access"};
       }},
      {"accessTokenFormat", [](ClientFields& f) { f.access_token_format = "JWT"; }},
      {"idTokenSignedResponseAlg", [](ClientFields& f) { f.id_token_alg = "HS256"; }},
  };
  for (const Case& c : cases) {
    ClientFields fields = minimal("confidential");
    c.change(fields);
    std::string problem;
    EXPECT_FALSE(new_client(fields, 0, problem)) << c.member;
    EXPECT_EQ(problem.substr(0, problem.find(':')), c.member) << problem;
  }
  ClientFields fields = minimal("public");
  fields.grant_types = std::vector<std::string>{"authorization_code", "client_credentials"};
  std::string problem;
  EXPECT_FALSE(new_client(fields, 0, problem));
  EXPECT_EQ(problem.substr(0, problem.find(':')), "grantTypes") << problem;
  fields = minimal("confidential");
  fields.grant_types = std::vector<std::string>{"authorization_code", "client_credentials"};
  problem.clear();
  EXPECT_TRUE(new_client(fields, 0, problem)) << problem;
}

// 17.11: introspection needs a secret to authenticate with: a public
// client is refused it at registration.
TEST(OidcClientRules, Interface_17_11_IntrospectionOnlyForConfidentialClients) {
  ClientFields fields = minimal("public");
  fields.introspection = true;
  std::string problem;
  EXPECT_FALSE(new_client(fields, 0, problem));
  EXPECT_EQ(problem.substr(0, problem.find(':')), "introspection") << problem;
  fields = minimal("confidential");
  fields.introspection = true;
  problem.clear();
  std::optional<OAuthClientRecord> client = new_client(fields, 0, problem);
  ASSERT_TRUE(client) << problem;
  EXPECT_TRUE(client->introspection);
}

TEST(OidcClientRules, Interface_17_3_PatchChangesOnlyWhatIsSentAndNeverTheType) {
  std::string problem;
  OAuthClientRecord client = *new_client(minimal("confidential"), 0, problem);
  const OAuthClientRecord before = client;
  ClientFields patch;
  patch.first_party = true;
  patch.type = "confidential";  // the same type: allowed
  std::vector<std::string> changed;
  ASSERT_TRUE(apply_client_fields(client, patch, changed, problem)) << problem;
  EXPECT_EQ(changed, (std::vector<std::string>{"firstParty"}));
  EXPECT_TRUE(client.first_party);
  EXPECT_EQ(client.redirect_uris, before.redirect_uris);
  EXPECT_EQ(client.scopes, before.scopes);
  patch = {};
  patch.type = "public";
  changed.clear();
  EXPECT_FALSE(apply_client_fields(client, patch, changed, problem));
  EXPECT_EQ(problem.substr(0, 5), "type:");
  // A change whose result breaks a rule is refused as a whole.
  patch = {};
  patch.grant_types =
      std::vector<std::string>{"authorization_code"};  // scopes still hold offline_access
  problem.clear();
  EXPECT_FALSE(apply_client_fields(client, patch, changed, problem));
  EXPECT_EQ(problem.substr(0, 7), "scopes:");
}

TEST(OidcClientSecret, Interface_17_3_PreviousSecretWorksOnlyUntilItsTime) {
  init_crypto();
  OAuthClientRecord client;
  client.secret_digest = sha256("authdcs_new");
  client.previous_secret_digest = sha256("authdcs_old");
  client.previous_secret_until = 1000;
  EXPECT_TRUE(client_secret_matches(client, "authdcs_new", 5000));
  EXPECT_TRUE(client_secret_matches(client, "authdcs_old", 999));
  EXPECT_FALSE(client_secret_matches(client, "authdcs_old", 1000));
  EXPECT_FALSE(client_secret_matches(client, "authdcs_other", 0));
  EXPECT_FALSE(client_secret_matches(client, "", 0));
  client.secret_digest.reset();
  EXPECT_FALSE(client_secret_matches(client, "authdcs_new", 0));
}

// ---- Client credentials (interface.md 17.7) ----

std::string base64(const std::string& text) {
  std::string out(sodium_base64_encoded_len(text.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(text.data()),
                    text.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.find('\0'));
  return out;
}

struct Presented {
  std::optional<PresentedClient> client;
  std::string problem;
};

Presented present(std::vector<std::string> authorization, const std::string& body) {
  ApiRequest request;
  std::vector<std::string> fields = std::move(authorization);
  for (const std::string& field : fields) request.authorization.push_back(field);
  std::optional<FormParameters> form = parse_form(body);
  Presented out;
  if (!form) {
    ADD_FAILURE() << body;
    return out;
  }
  out.client = presented_client(request, *form, out.problem);
  return out;
}

// RFC 6749 2.3.1: id and secret are form-urlencoded before base64.
TEST(OidcClientCredentials, Interface_17_7_BasicDecodesBothParts) {
  Presented p = present({"Basic " + base64("my%3Aid:s%2Bc%25r+t%3A")}, "grant_type=x");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_EQ(p.client->id, "my:id");
  EXPECT_EQ(p.client->secret, "s+c%r t:");
  EXPECT_EQ(p.client->method, PresentedClient::Method::basic);
  // Case-insensitive scheme, padding optional, the same client_id in the body allowed.
  p = present({"basic " + base64("abc:de")}, "client_id=abc");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_EQ(p.client->secret, "de");
  std::string unpadded = base64("abc:d");
  unpadded.erase(unpadded.find('='));
  p = present({"Basic " + unpadded}, "");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_EQ(p.client->secret, "d");
  // An empty password is no secret.
  p = present({"Basic " + base64("abc:")}, "");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_EQ(p.client->secret, std::nullopt);
}

// Decision (api/oauth_client_credentials.hpp): malformed Basic credentials
// are invalid_request (RFC 6749 5.2, "otherwise malformed"), not counted.
TEST(OidcClientCredentials, Interface_17_7_MalformedBasicIsInvalidRequest) {
  for (const std::string& field :
       {std::string("Basic"), std::string("Basic !!!"), "Basic " + base64("no-colon"),
        "Basic " + base64(":secret"), "Basic " + base64("id:%zz"), "Basic " + base64("%4:x"),
        "Bearer " + base64("id:secret"), std::string("Digest abc")}) {
    Presented p = present({field}, "");
    EXPECT_FALSE(p.client) << field;
    EXPECT_FALSE(p.problem.empty()) << field;
  }
  Presented twice = present({"Basic " + base64("a:b"), "Basic " + base64("a:b")}, "");
  EXPECT_FALSE(twice.client);
}

// RFC 6749 2.3: one method per request.
TEST(OidcClientCredentials, Interface_17_7_TwoMethodsAtOnceAreInvalidRequest) {
  for (const std::string& body : {std::string("client_id=a&client_secret=b"),
                                  std::string("client_secret=b"), std::string("client_id=other")}) {
    Presented p = present({"Basic " + base64("a:b")}, body);
    EXPECT_FALSE(p.client) << body;
    EXPECT_FALSE(p.problem.empty()) << body;
  }
  for (const std::string& body : {std::string("client_id=a&client_id=a"),
                                  std::string("client_id=a&client_secret=b&"
                                              "client_secret=b"),
                                  std::string("client_secret=b")}) {
    Presented p = present({}, body);
    EXPECT_FALSE(p.client) << body;
    EXPECT_FALSE(p.problem.empty()) << body;
  }
}

TEST(OidcClientCredentials, Interface_17_7_PostAndNone) {
  Presented p = present({}, "client_id=abc&client_secret=s%2B1");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_EQ(p.client->method, PresentedClient::Method::post);
  EXPECT_EQ(p.client->id, "abc");
  EXPECT_EQ(p.client->secret, "s+1");
  p = present({}, "client_id=abc&client_secret=");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_EQ(p.client->method, PresentedClient::Method::none);
  EXPECT_EQ(p.client->secret, std::nullopt);
  // No credentials at all: a client with no id (invalid_client, RFC 6749 5.2).
  p = present({}, "grant_type=authorization_code");
  ASSERT_TRUE(p.client) << p.problem;
  EXPECT_TRUE(p.client->id.empty());
}

}  // namespace
}  // namespace authd
