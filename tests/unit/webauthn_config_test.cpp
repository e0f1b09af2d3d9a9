// config/config: the relying party of passkeys (interface.md 16.1), derived
// from --public-url or taken from --webauthn-rp-id and --webauthn-origins,
// each rule in a test. Through the real binary:
// Passkeys.Interface_16_1_TheRelyingPartyIsCheckedAtStart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.hpp"

namespace authd {
namespace {

Config::RelyingParty party_of(const std::string& public_url, const std::string& rp_id = "",
                              const std::string& origins = "") {
  Config config;
  config.public_url = public_url;
  config.webauthn_rp_id = rp_id;
  config.webauthn_origins = origins;
  return config.webauthn_relying_party();
}

TEST(WebauthnConfig, Interface_16_1_1_TheDefaultsComeFromThePublicUrl) {
  Config::RelyingParty party = party_of("https://Auth.Example.com/base/");
  EXPECT_EQ(party.id, "auth.example.com");
  EXPECT_EQ(party.origins, std::vector<std::string>{"https://auth.example.com"});
  EXPECT_TRUE(party.problem_option.empty());
  party = party_of("https://auth.example.com:8443");
  EXPECT_EQ(party.origins, std::vector<std::string>{"https://auth.example.com:8443"});
  party = party_of("http://localhost:8080");
  EXPECT_EQ(party.id, "localhost");
  EXPECT_EQ(party.origins, std::vector<std::string>{"http://localhost:8080"});
}

TEST(WebauthnConfig, Interface_16_1_2_APublicUrlWithoutAUsableDomainLeavesPasskeysOff) {
  for (const char* url :
       {"http://127.0.0.1:8080", "https://[::1]:8443", "http://authd.test", "https://192.0.2.7"}) {
    Config::RelyingParty party = party_of(url);
    EXPECT_TRUE(party.id.empty()) << url;
    EXPECT_TRUE(party.problem_option.empty()) << url;  // not an error: the start goes on
  }
}

TEST(WebauthnConfig, Interface_16_1_1_GivenOptionsAreCheckedAndRefused) {
  Config::RelyingParty party = party_of("http://127.0.0.1:8080", "example.com",
                                        "https://example.com, https://app.example.com");
  EXPECT_EQ(party.id, "example.com");
  EXPECT_EQ(party.origins,
            (std::vector<std::string>{"https://example.com", "https://app.example.com"}));

  EXPECT_EQ(party_of("https://example.com", "192.0.2.1").problem_option, "--webauthn-rp-id");
  EXPECT_EQ(party_of("https://example.com", "Example.com").problem_option, "--webauthn-rp-id");
  for (const char* origins :
       {"https://other.example", "https://notexample.com", "http://example.com",
        "https://example.com/path", "https://example.com,", "example.com"}) {
    EXPECT_EQ(party_of("https://example.com", "example.com", origins).problem_option,
              "--webauthn-origins")
        << origins;
  }
  // An RP ID given for an http:// public URL needs its https origins named.
  EXPECT_EQ(party_of("http://authd.test", "authd.test").problem_option, "--webauthn-origins");
}

}  // namespace
}  // namespace authd
