#include "upstream/registry.hpp"

#include <sodium.h>

#include "core/log.hpp"
#include "core/time.hpp"
#include "core/wipe_json.hpp"
#include "upstream/http_client.hpp"
#include "upstream/id_token.hpp"

namespace authd {
namespace {

constexpr auto kDiscoveryRetry = std::chrono::seconds(10);
constexpr auto kJwksRefetchFloor = std::chrono::minutes(1);  // 18.2: at most once a minute
constexpr auto kCallTimeout = std::chrono::seconds(10);
constexpr auto kDiscoveryTimeout = std::chrono::seconds(5);

std::string text_member(const nlohmann::json& object, const std::string& name) {
  if (!object.is_object()) return "";
  auto it = object.find(name);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  return "";
}

nlohmann::json parse_object(const UpstreamHttpAnswer& answer) {
  if (!answer.ok()) return nlohmann::json();
  nlohmann::json parsed = nlohmann::json::parse(answer.body, nullptr, false);
  return parsed.is_object() ? parsed : nlohmann::json();
}

// RFC 6749 2.3.1: HTTP Basic with the form-encoded id and secret.
std::string basic_authorization(const UpstreamProvider& p) {
  std::string pair = form_component(p.client_id) + ":" + form_component(p.client_secret);
  std::string encoded(sodium_base64_ENCODED_LEN(pair.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(encoded.data(), encoded.size(),
                    reinterpret_cast<const unsigned char*>(pair.data()), pair.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  encoded.resize(std::strlen(encoded.c_str()));
  sodium_memzero(pair.data(), pair.size());
  return "Authorization: Basic " + encoded;
}

// GitHub's /user/emails: the primary address when it is verified, else any
// verified one.
void read_emails(const nlohmann::json& list, UpstreamIdentity& identity) {
  if (!list.is_array()) return;
  const nlohmann::json* chosen = nullptr;
  for (const nlohmann::json& item : list) {
    if (!item.is_object() || item.value("verified", false) != true) continue;
    if (text_member(item, "email").empty()) continue;
    if (chosen == nullptr || item.value("primary", false) == true) chosen = &item;
  }
  if (chosen == nullptr) return;
  identity.email = text_member(*chosen, "email");
  identity.email_verified = true;
}

// 18.5: the answer as a provider with keep-tokens keeps it; `expires_in`
// (seconds, a number or a numeric string) made absolute.
UpstreamTokens tokens_of(const nlohmann::json& answer) {
  UpstreamTokens tokens;
  tokens.token_type = text_member(answer, "token_type");
  tokens.access_token = text_member(answer, "access_token");
  tokens.scope = text_member(answer, "scope");
  tokens.refresh_token = text_member(answer, "refresh_token");
  tokens.id_token = text_member(answer, "id_token");
  std::string expires_in = text_member(answer, "expires_in");
  if (!expires_in.empty() && expires_in.size() < 12 &&
      expires_in.find_first_not_of("0123456789") == std::string::npos)
    tokens.expires_at = now_millis() + std::stoll(expires_in) * 1000;
  return tokens;
}

}  // namespace

UpstreamRegistry::UpstreamRegistry(std::vector<UpstreamProvider> providers, std::string public_url)
    : providers_(std::move(providers)), public_url_(std::move(public_url)) {
  for (const UpstreamProvider& p : providers_) {
    State state;
    if (p.kind == UpstreamKind::oauth2)
      state.endpoints = UpstreamEndpoints{"", p.authorization_endpoint, p.token_endpoint,
                                          p.userinfo_endpoint, ""};
    state_.emplace(p.name, std::move(state));
  }
}

UpstreamRegistry::~UpstreamRegistry() { stop(); }

void UpstreamRegistry::start() {
  bool pending = false;
  for (const UpstreamProvider& p : providers_) {
    if (p.kind == UpstreamKind::oidc && !discover(p)) pending = true;
  }
  if (!pending) return;
  retry_ = std::make_unique<PeriodicThread>(kDiscoveryRetry, [this] { retry_discovery(); });
  retry_->start();
}

void UpstreamRegistry::stop() {
  if (retry_) retry_->stop();
  pool_.join();
}

void UpstreamRegistry::retry_discovery() {
  for (const UpstreamProvider& p : providers_) {
    if (p.kind != UpstreamKind::oidc || endpoints(p.name)) continue;
    if (retry_->stopping()) return;
    discover(p);
  }
}

const UpstreamProvider* UpstreamRegistry::find(std::string_view name) const {
  for (const UpstreamProvider& p : providers_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<UpstreamEndpoints> UpstreamRegistry::endpoints(std::string_view name) const {
  std::lock_guard lock(mutex_);
  auto it = state_.find(name);
  return it == state_.end() ? std::nullopt : it->second.endpoints;
}

std::string UpstreamRegistry::redirect_uri(std::string_view name) const {
  return public_url_ + "/signin/" + std::string(name) + "/callback";
}

// OpenID Connect Discovery 4: the metadata at {issuer}/.well-known/..., whose
// issuer must be the configured one exactly (4.3), with endpoints authd may
// call; then the keys.
bool UpstreamRegistry::discover(const UpstreamProvider& p) {
  std::string base = p.issuer;
  if (base.ends_with('/')) base.pop_back();
  UpstreamHttpRequest request{base + "/.well-known/openid-configuration",
                              {"Accept: application/json"},
                              "",
                              false,
                              kDiscoveryTimeout};
  UpstreamHttpAnswer answer = upstream_http(request);
  nlohmann::json metadata = parse_object(answer);
  UpstreamEndpoints at{
      text_member(metadata, "issuer"), text_member(metadata, "authorization_endpoint"),
      text_member(metadata, "token_endpoint"), text_member(metadata, "userinfo_endpoint"),
      text_member(metadata, "jwks_uri")};
  std::string problem;
  if (metadata.is_null()) {
    problem = answer.status == 0 ? answer.error : "HTTP " + std::to_string(answer.status);
  } else if (at.issuer != p.issuer) {
    problem = "the metadata's issuer is not the configured one";
  } else if (!is_upstream_url(at.authorization) || !is_upstream_url(at.token) ||
             !is_upstream_url(at.jwks_uri)) {
    problem = "the metadata lacks a usable authorization, token or jwks endpoint";
  } else if (!fetch_jwks(p, at.jwks_uri)) {
    problem = "the JWKS could not be fetched";
  }
  if (!problem.empty()) {
    log::warn("upstream_discovery_failed",
              {{"provider", p.name}, {"error", problem}, {"retry_in_s", kDiscoveryRetry.count()}});
    return false;
  }
  {
    std::lock_guard lock(mutex_);
    state_[p.name].endpoints = std::move(at);
  }
  log::info("upstream_discovered", {{"provider", p.name}});
  return true;
}

bool UpstreamRegistry::fetch_jwks(const UpstreamProvider& p, const std::string& jwks_uri) {
  {
    // Refetches are spaced by a minute, whatever asks (18.2).
    std::lock_guard lock(mutex_);
    State& state = state_[p.name];
    auto now = std::chrono::steady_clock::now();
    if (state.jwks_ever && now - state.jwks_fetched < kJwksRefetchFloor) return false;
    state.jwks_fetched = now;
  }
  UpstreamHttpAnswer answer =
      upstream_http({jwks_uri, {"Accept: application/json"}, "", false, kCallTimeout});
  nlohmann::json jwks = parse_object(answer);
  if (jwks.is_null() || !jwks.contains("keys") || !jwks["keys"].is_array()) return false;
  std::lock_guard lock(mutex_);
  State& state = state_[p.name];
  state.jwks = std::move(jwks);
  state.jwks_ever = true;
  return true;
}

UpstreamExchange UpstreamRegistry::exchange(const UpstreamProvider& p, const std::string& code,
                                            const std::string& verifier, const std::string& nonce) {
  std::optional<UpstreamEndpoints> at = endpoints(p.name);
  if (!at) return {std::nullopt, "discovery"};
  std::string form = "grant_type=authorization_code&code=" + form_component(code) +
                     "&redirect_uri=" + form_component(redirect_uri(p.name)) +
                     "&code_verifier=" + form_component(verifier);
  UpstreamHttpRequest request{
      at->token,
      {"Accept: application/json", "Content-Type: application/x-www-form-urlencoded"},
      "",
      true,
      kCallTimeout};
  if (p.kind == UpstreamKind::oidc) {
    request.headers.push_back(basic_authorization(p));  // client_secret_basic
  } else {
    // GitHub's shape: the client's credentials in the form.
    form += "&client_id=" + form_component(p.client_id) +
            "&client_secret=" + form_component(p.client_secret);
  }
  request.form = std::move(form);
  UpstreamHttpAnswer answer = upstream_http(request);
  sodium_memzero(request.form.data(), request.form.size());
  nlohmann::json tokens = parse_object(answer);
  sodium_memzero(answer.body.data(), answer.body.size());
  if (tokens.is_null() || tokens.contains("error")) return {std::nullopt, "token_endpoint"};
  UpstreamExchange result = p.kind == UpstreamKind::oidc ? verify_oidc(p, *at, tokens, nonce)
                                                         : read_oauth2_user(p, *at, tokens);
  if (result.identity && p.keep_tokens) result.tokens = tokens_of(tokens);
  wipe_strings(tokens);  // the answer's secrets, once read
  return result;
}

UpstreamExchange UpstreamRegistry::verify_oidc(const UpstreamProvider& p,
                                               const UpstreamEndpoints& at,
                                               const nlohmann::json& tokens,
                                               const std::string& nonce) {
  std::string id_token = text_member(tokens, "id_token");
  if (id_token.empty()) return {std::nullopt, "id_token:missing"};
  IdTokenExpectation expected{p.issuer, p.client_id, nonce, epoch_seconds(now_millis())};
  nlohmann::json jwks;
  {
    std::lock_guard lock(mutex_);
    jwks = state_[p.name].jwks;
  }
  IdTokenCheck check = check_id_token(id_token, jwks, expected);
  // A key the cache does not have yet (the provider rotated): fetched again,
  // at most once a minute.
  if (check.refusal == "unknown_kid" && fetch_jwks(p, at.jwks_uri)) {
    std::lock_guard lock(mutex_);
    jwks = state_[p.name].jwks;
  }
  if (check.refusal == "unknown_kid") check = check_id_token(id_token, jwks, expected);
  if (!check.ok()) return {std::nullopt, "id_token:" + check.refusal};
  UpstreamIdentity identity;
  identity.subject = text_member(check.claims, "sub");
  identity.email = text_member(check.claims, "email");
  // Only a boolean true asserts it.
  auto verified = check.claims.find("email_verified");
  identity.email_verified = !identity.email.empty() && verified != check.claims.end() &&
                            verified->is_boolean() && verified->get<bool>();
  identity.display_name = text_member(check.claims, "name");
  return {std::move(identity), ""};
}

UpstreamExchange UpstreamRegistry::read_oauth2_user(const UpstreamProvider& p,
                                                    const UpstreamEndpoints& at,
                                                    const nlohmann::json& tokens) {
  std::string access = text_member(tokens, "access_token");
  if (access.empty()) return {std::nullopt, "token_endpoint"};
  std::vector<std::string> headers = {"Accept: application/json",
                                      "Authorization: Bearer " + access};
  nlohmann::json user =
      parse_object(upstream_http({at.userinfo, headers, "", false, kCallTimeout}));
  if (user.is_null()) return {std::nullopt, "userinfo"};
  UpstreamIdentity identity;
  identity.subject = text_member(user, p.claims.subject);
  if (identity.subject.empty()) return {std::nullopt, "userinfo"};
  identity.email = text_member(user, p.claims.email);
  if (!p.claims.email_verified.empty()) {
    auto verified = user.find(p.claims.email_verified);
    identity.email_verified = !identity.email.empty() && verified != user.end() &&
                              verified->is_boolean() && verified->get<bool>();
  }
  identity.display_name = text_member(user, p.claims.name);
  if (identity.display_name.empty())
    identity.display_name = text_member(user, p.claims.fallback_name);
  if (!p.emails_endpoint.empty()) {
    UpstreamHttpAnswer emails =
        upstream_http({p.emails_endpoint, headers, "", false, kCallTimeout});
    if (emails.ok()) read_emails(nlohmann::json::parse(emails.body, nullptr, false), identity);
  }
  sodium_memzero(access.data(), access.size());
  for (std::string& h : headers) sodium_memzero(h.data(), h.size());
  return {std::move(identity), ""};
}

}  // namespace authd
