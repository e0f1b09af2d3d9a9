#include "auth/oidc/rp_logout.hpp"

#include <algorithm>

#include "auth/oidc/jwt_verify.hpp"
#include "auth/oidc/signing_key_ring.hpp"
#include "auth/oidc/signing_keys.hpp"
#include "core/percent_encoding.hpp"
#include "crypto/random.hpp"
#include "crypto/sealed_secrets.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

// The keyed digest's purpose (crypto/sealed_secrets.hpp): a form token
// made for anything else never verifies here.
constexpr std::string_view kFormTokenPurpose = "oauth2 logout confirmation";

LogoutStep error_page(int status, std::string message) {
  LogoutStep step;
  step.kind = LogoutStep::Kind::error_page;
  step.status = status;
  step.message = std::move(message);
  return step;
}

LogoutStep unavailable() { return LogoutStep{}; }

// What a verified id_token_hint says: its client (aud), session and user.
struct Hint {
  std::string client_id;
  std::string sid;
  std::string sub;
};

// authd's ID tokens have one audience, the client (17.8.1); an array of
// exactly one is the same audience.
std::optional<Hint> hint_of(const VerifiedJwt& jwt) {
  const nlohmann::json& claims = jwt.claims;
  auto aud = claims.find("aud");
  if (aud == claims.end()) return std::nullopt;
  const nlohmann::json* audience = &*aud;
  if (aud->is_array() && aud->size() == 1) audience = &aud->front();
  if (!audience->is_string()) return std::nullopt;
  Hint hint;
  hint.client_id = audience->get<std::string>();
  auto text = [&](const char* name) {
    auto member = claims.find(name);
    return member != claims.end() && member->is_string() ? member->get<std::string>() : "";
  };
  hint.sid = text("sid");
  hint.sub = text("sub");
  return hint;
}

// The browser's session, when its cookie names a live one of an enabled
// account.
std::optional<SessionRecord> live_session(Transaction& tx, const std::optional<std::string>& token,
                                          Millis now) {
  if (!token) return std::nullopt;
  std::optional<SessionRecord> session = tx.sessions().record_of(sha256(*token));
  if (!session || session->expires_at <= now) return std::nullopt;
  std::optional<UserRecord> user = tx.users().by_id(session->user_id);
  if (!user || user->disabled) return std::nullopt;
  return session;
}

// A request checked (17.13): refused, or what may happen and where the
// browser may go afterwards.
struct Checked {
  std::optional<LogoutStep> refusal;
  std::optional<Hint> hint;
  std::string client_id;  // the hint's aud, or client_id: "" when none
  std::string client_name;
  std::optional<std::string> redirect;      // the URI with state, when allowed
  std::optional<std::string> redirect_uri;  // as sent, when registered
  std::optional<SessionRecord> browser;
};

std::string with_state(const std::string& uri, const std::optional<std::string>& state) {
  if (!state) return uri;
  return uri + (uri.find('?') == std::string::npos ? '?' : '&') + "state=" + percent_encode(*state);
}

// The hint verified with the key ring (current or retired keys, 17.12);
// an expired hint is accepted (RP-Initiated Logout 1.0, 2).
std::optional<LogoutStep> check_hint(AuthContext& ctx, const LogoutParameters& parameters,
                                     Checked& checked, Millis now) {
  if (!parameters.id_token_hint) return std::nullopt;
  if (ctx.signing_keys == nullptr) return unavailable();
  std::shared_ptr<const SigningKeyRing> ring = ctx.signing_keys->ring();
  if (!ring) return unavailable();
  std::optional<VerifiedJwt> verified =
      verify_own_jwt(*ring, ctx.policy.oidc.issuer, *parameters.id_token_hint, "JWT", now, true);
  if (verified) checked.hint = hint_of(*verified);
  if (!checked.hint)
    return error_page(400,
                      "The application's sign-out request is not valid: authd did not issue its "
                      "id_token_hint.");
  if (parameters.client_id && *parameters.client_id != checked.hint->client_id)
    return error_page(400,
                      "The application's sign-out request names another application than the "
                      "one its id_token_hint was issued to.");
  return std::nullopt;
}

// The client's registered post_logout_redirect_uris (exact match, 17.13);
// a redirect only with a verified hint.
std::optional<LogoutStep> check_redirect(const LogoutParameters& parameters,
                                         const std::optional<OAuthClientRecord>& client,
                                         Checked& checked) {
  if (!parameters.post_logout_redirect_uri) return std::nullopt;
  const std::string& uri = *parameters.post_logout_redirect_uri;
  if (!client ||
      std::find(client->post_logout_redirect_uris.begin(), client->post_logout_redirect_uris.end(),
                uri) == client->post_logout_redirect_uris.end())
    return error_page(400,
                      "The application asked to send you back to an address it did not register. "
                      "You have not been signed out.");
  checked.redirect_uri = uri;
  if (checked.hint) checked.redirect = with_state(uri, parameters.state);
  return std::nullopt;
}

boost::asio::awaitable<Checked> check(AuthContext& ctx, const LogoutParameters& parameters,
                                      const std::optional<std::string>& session_token) {
  Checked checked;
  Millis now = now_millis();
  if ((checked.refusal = check_hint(ctx, parameters, checked, now))) co_return checked;
  checked.client_id = checked.hint ? checked.hint->client_id : parameters.client_id.value_or("");
  // 17.3: client ids are UUIDs; anything else is nobody's.
  bool named = !checked.client_id.empty();
  if (named && !checked.hint && !is_canonical_uuid(checked.client_id)) {
    checked.refusal = error_page(400, "The application that sent you here is not registered.");
    co_return checked;
  }
  std::optional<OAuthClientRecord> client;
  auto work = [&](Transaction& tx) {
    if (named && is_canonical_uuid(checked.client_id))
      client = tx.oauth_clients().by_id(checked.client_id);
    checked.browser = live_session(tx, session_token, now);
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) {
    checked.refusal = unavailable();
    co_return checked;
  }
  // A hint's client may have been deleted since: then nothing is
  // registered for it, and no redirect.
  if (named && !checked.hint && !client) {
    checked.refusal = error_page(400, "The application that sent you here is not registered.");
    co_return checked;
  }
  if (client) checked.client_name = client->name;
  checked.refusal = check_redirect(parameters, client, checked);
  co_return checked;
}

LogoutStep signed_out(const Checked& checked) {
  LogoutStep step;
  step.kind = LogoutStep::Kind::signed_out;
  step.client_name = checked.client_name;
  step.redirect = checked.redirect;
  return step;
}

// Ends the browser's session, with the logout event of 14.1 (its client
// when known). A session ended meanwhile is as good.
boost::asio::awaitable<LogoutStep> end_session(AuthContext& ctx, const Checked& checked,
                                               const std::string& session_token,
                                               const EventSource& source) {
  Millis now = now_millis();
  nlohmann::json details = nlohmann::json::object();
  if (!checked.client_id.empty()) details["clientId"] = checked.client_id;
  auto work = [&](Transaction& tx) {
    std::optional<UserRecord> user = tx.sessions().revoke_live(sha256(session_token), now);
    if (user) record_event(tx, source, "logout", user->id, details, now);
  };
  if (co_await ctx.db.write(work) != StoreStatus::ok) co_return unavailable();
  co_return signed_out(checked);
}

// The form token: "<expiry in seconds>.<keyed digest>", the digest over
// the session token's digest and the expiry. Only this session's cookie
// makes it valid, and the session ends when it is used: it is good once.
std::string form_token_mac(const SecretSealer& sealer, const Sha256Digest& session,
                           std::string_view expiry, bool previous_key) {
  std::string message(reinterpret_cast<const char*>(session.data()), session.size());
  message += '.';
  message += expiry;
  std::optional<std::array<std::uint8_t, 32>> mac =
      previous_key ? sealer.previous_keyed_digest(kFormTokenPurpose, message)
                   : std::optional(sealer.keyed_digest(kFormTokenPurpose, message));
  return mac ? base64url(mac->data(), mac->size()) : std::string();
}

std::string new_form_token(const SecretSealer& sealer, const SessionRecord& session, Millis until) {
  std::string expiry = std::to_string(until / 1000);
  return expiry + "." + form_token_mac(sealer, session.token_digest, expiry, false);
}

bool form_token_holds(const SecretSealer& sealer, const SessionRecord& session,
                      std::string_view token, Millis now) {
  std::size_t dot = token.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 12) return false;
  std::string_view expiry = token.substr(0, dot);
  if (!std::all_of(expiry.begin(), expiry.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  if (std::stoll(std::string(expiry)) * 1000 <= now) return false;
  std::string_view mac = token.substr(dot + 1);
  for (bool previous : {false, true}) {
    std::string expected = form_token_mac(sealer, session.token_digest, expiry, previous);
    if (!expected.empty() && constant_time_equal(expected, mac)) return true;
  }
  return false;
}

}  // namespace

boost::asio::awaitable<LogoutStep> request_logout(AuthContext& ctx,
                                                  const LogoutParameters& parameters,
                                                  const std::optional<std::string>& session_token,
                                                  const EventSource& source) {
  Checked checked = co_await check(ctx, parameters, session_token);
  if (checked.refusal) co_return std::move(*checked.refusal);
  // No session in this browser: nothing to end, nothing to confirm.
  if (!checked.browser) co_return signed_out(checked);
  // The hint names this very session: the application signs its own user
  // out, at once (17.13).
  if (checked.hint && !checked.hint->sid.empty() &&
      checked.hint->sid == checked.browser->public_id &&
      checked.hint->sub == checked.browser->user_id)
    co_return co_await end_session(ctx, checked, *session_token, source);
  if (ctx.sealer == nullptr) co_return unavailable();
  LogoutStep step;
  step.kind = LogoutStep::Kind::confirm;
  step.client_name = checked.client_name;
  step.redirect = checked.redirect;
  step.redirect_uri = checked.redirect_uri;
  Millis until = std::min<Millis>(checked.browser->expires_at,
                                  now_millis() + ctx.policy.oidc.request_lifetime.count());
  step.form_token = new_form_token(*ctx.sealer, *checked.browser, until);
  co_return step;
}

boost::asio::awaitable<LogoutStep> confirm_logout(AuthContext& ctx,
                                                  const LogoutParameters& parameters,
                                                  std::string_view form_token,
                                                  const std::optional<std::string>& session_token,
                                                  const EventSource& source) {
  Checked checked = co_await check(ctx, parameters, session_token);
  if (checked.refusal) co_return std::move(*checked.refusal);
  // Signed out meanwhile (a second click, another tab): done already.
  if (!checked.browser) co_return signed_out(checked);
  if (ctx.sealer == nullptr) co_return unavailable();
  if (!form_token_holds(*ctx.sealer, *checked.browser, form_token, now_millis()))
    co_return error_page(403,
                         "This sign-out form has expired or did not come from authd. You have not "
                         "been signed out: go back to the application and sign out again.");
  co_return co_await end_session(ctx, checked, *session_token, source);
}

}  // namespace authd
