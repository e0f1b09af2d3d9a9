// The configured upstream providers at run time (interface.md 18.1, 18.2):
// each one's endpoints (an `oidc` provider's discovered at start, and
// again in the background while discovery fails, the others serving
// meanwhile), its JWKS (fetched with the discovery, fetched again for an
// unknown kid at most once a minute), and the blocking calls to it, run
// on a pool of the registry's own (libcurl blocks; a connection thread
// never does).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json.hpp>

#include "auth/upstream/kept_tokens.hpp"
#include "core/periodic_thread.hpp"
#include "upstream/provider.hpp"

namespace authd {

struct UpstreamEndpoints {
  std::string issuer;  // oidc only
  std::string authorization;
  std::string token;
  std::string userinfo;
  std::string jwks_uri;  // oidc only
};

// What a provider says of the user, once its answer is verified.
struct UpstreamIdentity {
  std::string subject;
  std::string email;  // as the provider gave it; "" when none
  bool email_verified = false;
  std::string display_name;
};

// The verdict of a callback's exchange: the identity, or a fixed word for
// the events ("token_endpoint", "id_token:<refusal>", "userinfo", ...).
struct UpstreamExchange {
  std::optional<UpstreamIdentity> identity;
  std::string refusal;
  // The token endpoint's answer, only for a provider with keep-tokens
  // (18.5) and an accepted identity.
  std::optional<UpstreamTokens> tokens{};
};

class UpstreamRegistry {
 public:
  // `public_url`: authd's, without a trailing slash (the redirect URIs').
  UpstreamRegistry(std::vector<UpstreamProvider> providers, std::string public_url);
  ~UpstreamRegistry();
  UpstreamRegistry(const UpstreamRegistry&) = delete;
  UpstreamRegistry& operator=(const UpstreamRegistry&) = delete;

  // Discovers every oidc provider once (logging those that fail), then
  // retries the failed ones in the background until they answer.
  void start();
  void stop();

  const std::vector<UpstreamProvider>& providers() const { return providers_; }
  const UpstreamProvider* find(std::string_view name) const;
  // Nothing while an oidc provider's discovery has not succeeded.
  std::optional<UpstreamEndpoints> endpoints(std::string_view name) const;
  std::string redirect_uri(std::string_view name) const;
  const std::string& public_url() const { return public_url_; }

  boost::asio::thread_pool& pool() { return pool_; }

  // Blocking (on pool()): exchanges `code` with `verifier` (PKCE) at the
  // token endpoint, then verifies the ID token against `nonce` (oidc) or
  // reads the user info (oauth2). The upstream's tokens are handed back
  // only when the provider keeps them (18.5).
  UpstreamExchange exchange(const UpstreamProvider& provider, const std::string& code,
                            const std::string& verifier, const std::string& nonce);

 private:
  struct State {
    std::optional<UpstreamEndpoints> endpoints;
    nlohmann::json jwks;
    std::chrono::steady_clock::time_point jwks_fetched{};
    bool jwks_ever = false;
  };

  bool discover(const UpstreamProvider& provider);
  bool fetch_jwks(const UpstreamProvider& provider, const std::string& jwks_uri);
  void retry_discovery();
  UpstreamExchange verify_oidc(const UpstreamProvider& provider, const UpstreamEndpoints& at,
                               const nlohmann::json& tokens, const std::string& nonce);
  UpstreamExchange read_oauth2_user(const UpstreamProvider& provider, const UpstreamEndpoints& at,
                                    const nlohmann::json& tokens);

  std::vector<UpstreamProvider> providers_;
  std::string public_url_;
  mutable std::mutex mutex_;
  std::map<std::string, State, std::less<>> state_;
  boost::asio::thread_pool pool_{2};
  std::unique_ptr<PeriodicThread> retry_;
};

}  // namespace authd
