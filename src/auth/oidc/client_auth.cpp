#include "auth/oidc/client_auth.hpp"

#include <sodium.h>

#include <optional>
#include <vector>

#include "auth/login/throttle.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

bool same_digest(const Sha256Digest& a, const std::optional<Sha256Digest>& b) {
  return b && sodium_memcmp(a.data(), b->data(), a.size()) == 0;
}

const char* method_name(PresentedClient::Method method) {
  switch (method) {
    case PresentedClient::Method::basic:
      return "client_secret_basic";
    case PresentedClient::Method::post:
      return "client_secret_post";
    case PresentedClient::Method::none:
      break;
  }
  return "none";
}

// Why `presented` does not authenticate as `client`, or null when it does.
const char* refusal(const std::optional<OAuthClientRecord>& client,
                    const PresentedClient& presented, Millis now) {
  if (!client) return "unknown_client";
  if (!client->confidential) return presented.secret ? "secret_from_public_client" : nullptr;
  if (!presented.secret) return "secret_missing";
  return client_secret_matches(*client, *presented.secret, now) ? nullptr : "secret_wrong";
}

// oauth.client_auth_failed: the id only when it is one authd could have
// given (a UUID), so that the trail never keeps what a client sent as its
// id by mistake (a secret, say).
nlohmann::json failure_detail(const PresentedClient& presented, const char* reason) {
  nlohmann::json detail = {{"reason", reason}, {"method", method_name(presented.method)}};
  if (is_canonical_uuid(presented.id)) detail["clientId"] = presented.id;
  return detail;
}

// The fast path (docs/design/performance-choices.md, "A right client secret
// by a read"): one read transaction that answers a request the write path
// would let through, and nothing else. True when the client address's
// counters allow and `presented` authenticates; then `client` is set.
// Anything else (over the limit, refused, the read failed) goes to the
// write path, which counts it or answers 429 as it always does.
boost::asio::awaitable<bool> authenticated_by_read(AuthContext& ctx,
                                                   const PresentedClient& presented,
                                                   const std::vector<ThrottleCounter>& per_client,
                                                   std::optional<OAuthClientRecord>& client) {
  bool authenticated = false;
  auto look = [&](Transaction& tx) {
    const Millis now = now_millis();
    authenticated = false;  // a transaction may run again: all anew
    client.reset();
    if (!check_throttles(tx, per_client, now).allowed) return;
    if (is_canonical_uuid(presented.id)) client = tx.oauth_clients().by_id(presented.id);
    authenticated = refusal(client, presented, now) == nullptr;
  };
  if (co_await ctx.db.read(look) != StoreStatus::ok) co_return false;
  co_return authenticated;
}

}  // namespace

bool client_secret_matches(const OAuthClientRecord& client, std::string_view secret, Millis now) {
  const Sha256Digest digest = sha256(secret);
  // Both compared, whatever the first says.
  const bool current = same_digest(digest, client.secret_digest);
  const bool previous = client.previous_secret_until && now < *client.previous_secret_until &&
                        same_digest(digest, client.previous_secret_digest);
  return current || previous;
}

boost::asio::awaitable<ClientAuthOutcome> authenticate_client(AuthContext& ctx,
                                                              const PresentedClient& presented,
                                                              const EventSource& source) {
  ClientAuthOutcome outcome;
  if (presented.id.empty()) {
    outcome.status = ClientAuthOutcome::Status::invalid_client;
    co_return outcome;
  }
  const AuthPolicy& policy = ctx.policy;
  const std::vector<ThrottleCounter> per_client =
      client_counters(ClientCounterKind::login, source.client_address,
                      policy.login_failures_per_client, policy.ipv6_aggregates);
  {
    std::optional<OAuthClientRecord> client;
    if (co_await authenticated_by_read(ctx, presented, per_client, client)) {
      outcome.status = ClientAuthOutcome::Status::ok;
      outcome.client = std::move(client);
      co_return outcome;
    }
  }
  auto authenticate = [&](Transaction& tx) {
    const Millis now = now_millis();
    outcome = ClientAuthOutcome{};  // a transaction may run again: all anew
    outcome.status = ClientAuthOutcome::Status::invalid_client;
    // Counted as a failed login of the client address up front, as a
    // passkey sign-in is (auth/second_factor/passkey_sign_in.cpp), so that
    // the limit holds under many guesses at once; released on success (a
    // success here is rare: the read above lets most through).
    ReservedFailure reserved = reserve_client_failure(tx, per_client, now);
    if (!reserved.verdict.allowed) {
      outcome.status = ClientAuthOutcome::Status::throttled;
      outcome.retry_after = reserved.verdict.retry_after;
      if (!count_throttled(tx, reserved.refused_by.key, now))
        record_throttled(tx, source, reserved.refused_by.key, reserved.refused_by.limit.window,
                         std::nullopt, {{"throttle", "client"}}, now);
      return;
    }
    std::optional<OAuthClientRecord> client;
    if (is_canonical_uuid(presented.id)) client = tx.oauth_clients().by_id(presented.id);
    if (const char* reason = refusal(client, presented, now)) {
      record_event(tx, source, "oauth.client_auth_failed", std::nullopt,
                   failure_detail(presented, reason), now);
      return;  // stays counted
    }
    reserved.release(tx);
    outcome.status = ClientAuthOutcome::Status::ok;
    outcome.client = std::move(client);
  };
  if (co_await ctx.db.write(authenticate) != StoreStatus::ok) outcome = ClientAuthOutcome{};
  co_return outcome;
}

}  // namespace authd
