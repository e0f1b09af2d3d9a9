#include "auth/oidc/authorization.hpp"

#include <algorithm>

#include "auth/login/throttle.hpp"
#include "auth/oidc/authorization_request.hpp"
#include "auth/oidc/codes.hpp"
#include "auth/oidc/redirect_uris.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

using Values = std::map<std::string, std::string, std::less<>>;

AuthorizationStep error_page(std::string message) {
  AuthorizationStep step;
  step.kind = AuthorizationStep::Kind::error_page;
  step.message = std::move(message);
  return step;
}

AuthorizationStep unavailable() { return AuthorizationStep{}; }

AuthorizationStep too_many_requests(std::chrono::seconds retry_after) {
  AuthorizationStep step = error_page(
      "Too many sign-in requests came from your network. Wait a few minutes, then go back to the "
      "application and try again.");
  step.status = 429;
  step.retry_after = std::max(retry_after, std::chrono::seconds(1));
  return step;
}

AuthorizationStep sign_in_step(std::string_view request_id) {
  AuthorizationStep step;
  step.kind = AuthorizationStep::Kind::sign_in;
  step.request_id = std::string(request_id);
  return step;
}

constexpr std::string_view kExpiredRequest =
    "This sign-in request has expired or was already answered. Go back to the application and "
    "try again.";

// RFC 6749 4.1.2.1 with RFC 9207's iss.
AuthorizationStep error_redirect(const AuthPolicy& policy, const std::string& redirect_uri,
                                 const std::optional<std::string>& state, std::string error,
                                 std::string description) {
  AuthorizationStep step;
  step.kind = AuthorizationStep::Kind::redirect;
  step.redirect.uri = redirect_uri;
  step.redirect.parameters = {{"error", std::move(error)},
                              {"error_description", std::move(description)}};
  if (state) step.redirect.parameters.emplace_back("state", *state);
  step.redirect.parameters.emplace_back("iss", policy.oidc.issuer);
  return step;
}

// The browser's session, when its cookie names a live one of an enabled
// account.
struct BrowserSession {
  SessionRecord session;
  UserRecord user;
};

std::optional<BrowserSession> live_browser_session(Transaction& tx,
                                                   const std::optional<std::string>& token,
                                                   Millis now) {
  if (!token) return std::nullopt;
  std::optional<SessionRecord> session = tx.sessions().record_of(sha256(*token));
  if (!session || session->expires_at <= now) return std::nullopt;
  std::optional<UserRecord> user = tx.users().by_id(session->user_id);
  if (!user || user->disabled) return std::nullopt;
  return BrowserSession{std::move(*session), std::move(*user)};
}

// Everything a decision reads, in one read transaction.
struct Situation {
  std::optional<OAuthClientRecord> client;
  std::optional<BrowserSession> browser;
  std::optional<ConsentRecord> consent;
};

bool consent_covers(const std::optional<ConsentRecord>& consent,
                    const AuthorizationParameters& parameters) {
  if (!consent) return false;
  return std::all_of(parameters.scopes.begin(), parameters.scopes.end(), [&](const auto& scope) {
    return std::find(consent->scopes.begin(), consent->scopes.end(), scope) !=
           consent->scopes.end();
  });
}

// Whether the browser's session may answer `parameters` now (17.4): signed
// in after the request was stored (`waiting_since`), or fresh enough for
// prompt=login and max_age.
bool fresh_enough(const AuthorizationParameters& parameters,
                  const std::optional<BrowserSession>& browser, std::optional<Millis> waiting_since,
                  Millis now) {
  if (!browser) return false;
  if (waiting_since && browser->session.created_at >= *waiting_since) return true;
  if (parameters.prompt_login) return false;
  // max_age=0 always asks (the session is at least as old as this request).
  if (parameters.max_age &&
      (*parameters.max_age == 0 || now - browser->session.created_at > *parameters.max_age * 1000))
    return false;
  return true;
}

// A request decided (17.4, 17.5): a code, an error for the client, or a
// wait. `waiting_since`: when the request was stored, if it was (a session
// that signed in after it is fresh, whatever prompt=login or max_age ask).
class Decision {
 public:
  Decision(AuthContext& ctx, AuthorizationParameters parameters, const EventSource& source)
      : ctx_(ctx), parameters_(std::move(parameters)), source_(source) {}

  boost::asio::awaitable<AuthorizationStep> decide(const Situation& situation,
                                                   std::optional<Millis> waiting_since,
                                                   std::optional<Sha256Digest> waiting_digest) {
    Millis now = now_millis();
    const AuthPolicy& policy = ctx_.policy;
    if (!fresh_enough(parameters_, situation.browser, waiting_since, now)) {
      if (parameters_.prompt_none)
        co_return error_redirect(policy, parameters_.redirect_uri, parameters_.state,
                                 "login_required", "the user is not signed in");
      co_return co_await wait_for(AuthorizationStep::Kind::sign_in, waiting_digest);
    }
    // prompt=consent always asks (the answer issues the code itself, so a
    // resumed request does not ask twice).
    if (!situation.client->first_party &&
        (parameters_.prompt_consent || !consent_covers(situation.consent, parameters_)))
      co_return co_await ask_consent(waiting_digest);
    co_return co_await issue_code(
        *situation.browser, waiting_digest,
        situation.client->first_party ? Consent::not_needed : Consent::given_before);
  }

  // How the code's consent stands: the client needs none (first party),
  // the user gave it before (read again under the user's lock), or the
  // user has just given it (recorded in the code's transaction).
  enum class Consent { not_needed, given_before, given_now };

  boost::asio::awaitable<AuthorizationStep> issue_code(const BrowserSession& browser,
                                                       std::optional<Sha256Digest> waiting_digest,
                                                       Consent consent) {
    Millis now = now_millis();
    IssuedCode code = new_authorization_code(ctx_.policy.oidc, parameters_, browser.session, now);
    bool answered_before = false;
    bool consent_withdrawn = false;
    auto work = [&](Transaction& tx) {
      answered_before = consent_withdrawn = false;  // a transaction may run again: all anew
      // The user's row before the request's, the consent's and the code's
      // (interface.md 8.2): withdrawing consent and the account's changes
      // lock the user, then delete its consents, codes and tokens. An
      // account erased meanwhile gets no code, nor does a consent
      // withdrawn since it was read.
      if (!tx.users().by_id(browser.user.id)) {
        answered_before = true;
        return;
      }
      if (consent == Consent::given_before &&
          !consent_covers(tx.consents().get(browser.user.id, parameters_.client_id), parameters_)) {
        consent_withdrawn = true;
        return;
      }
      // A waiting request is answered once: of two resumptions at once
      // (a double click), the one that removes it issues the code.
      answered_before = waiting_digest && !tx.authorization_requests().remove(*waiting_digest);
      if (answered_before) return;
      if (consent == Consent::given_now) record_consent(tx, browser.user.id, now);
      tx.authorization_codes().insert(code.record);
      record_event(tx, source_, "oauth.authorized", browser.user.id,
                   {{"clientId", parameters_.client_id}, {"scopes", parameters_.scopes}}, now);
    };
    if (co_await ctx_.db.write(work) != StoreStatus::ok) co_return unavailable();
    if (answered_before) co_return error_page(std::string(kExpiredRequest));
    if (consent_withdrawn) co_return co_await ask_consent(waiting_digest);
    AuthorizationStep step;
    step.kind = AuthorizationStep::Kind::redirect;
    step.redirect.uri = parameters_.redirect_uri;
    step.redirect.parameters.emplace_back("code", std::move(code.code));
    if (parameters_.state) step.redirect.parameters.emplace_back("state", *parameters_.state);
    step.redirect.parameters.emplace_back("iss", ctx_.policy.oidc.issuer);
    co_return step;
  }

  const AuthorizationParameters& parameters() const { return parameters_; }

 private:
  // The consent page, or consent_required for prompt=none (17.4).
  boost::asio::awaitable<AuthorizationStep> ask_consent(
      std::optional<Sha256Digest> waiting_digest) {
    if (parameters_.prompt_none)
      co_return error_redirect(ctx_.policy, parameters_.redirect_uri, parameters_.state,
                               "consent_required", "the user has not consented");
    co_return co_await wait_for(AuthorizationStep::Kind::consent, waiting_digest);
  }

  // Keeps the request server side (17.5), unless it already is.
  boost::asio::awaitable<AuthorizationStep> wait_for(AuthorizationStep::Kind kind,
                                                     std::optional<Sha256Digest> waiting_digest) {
    AuthorizationStep step;
    step.kind = kind;
    step.login_hint = parameters_.login_hint;
    if (waiting_digest) co_return step;  // the resumed request's id is the caller's
    step.request_id = new_secret_token("authdar_");
    Millis now = now_millis();
    AuthorizationRequestRecord record{sha256(step.request_id), parameters_.client_id,
                                      to_json(parameters_), now,
                                      now + ctx_.policy.oidc.request_lifetime.count()};
    // Nobody signs in to make a waiting request: each is counted per client
    // address, as the passkey sign-in options are (16.3.1), so that one
    // client cannot fill the table.
    const std::vector<ThrottleCounter> counters =
        client_counters(ClientCounterKind::authorize, source_.client_address,
                        ctx_.policy.login_failures_per_client, ctx_.policy.ipv6_aggregates);
    ThrottleVerdict verdict;
    auto work = [&](Transaction& tx) {
      verdict = count_request(tx, counters, now);
      if (verdict.allowed) tx.authorization_requests().insert(record);
    };
    if (co_await ctx_.db.write(work) != StoreStatus::ok) co_return unavailable();
    if (!verdict.allowed) co_return too_many_requests(verdict.retry_after);
    co_return step;
  }

  void record_consent(Transaction& tx, const std::string& user_id, Millis now) {
    std::optional<ConsentRecord> consent = tx.consents().get(user_id, parameters_.client_id);
    ConsentRecord updated =
        consent.value_or(ConsentRecord{user_id, parameters_.client_id, {}, now, now});
    for (const std::string& scope : parameters_.scopes)
      if (std::find(updated.scopes.begin(), updated.scopes.end(), scope) == updated.scopes.end())
        updated.scopes.push_back(scope);
    std::sort(updated.scopes.begin(), updated.scopes.end());
    updated.updated_at = now;
    tx.consents().upsert(updated);
    record_event(tx, source_, "oauth.consent_granted", user_id,
                 {{"clientId", parameters_.client_id}, {"scopes", updated.scopes}}, now);
  }

  AuthContext& ctx_;
  AuthorizationParameters parameters_;
  const EventSource& source_;
};

// Reads the client, the browser's session and its user's consent to the
// client.
boost::asio::awaitable<std::optional<Situation>> read_situation(
    AuthContext& ctx, const std::string& client_id, const std::optional<std::string>& token) {
  Situation situation;
  Millis now = now_millis();
  auto work = [&](Transaction& tx) {
    situation.client = tx.oauth_clients().by_id(client_id);
    situation.browser = live_browser_session(tx, token, now);
    if (situation.client && situation.browser)
      situation.consent = tx.consents().get(situation.browser->user.id, client_id);
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) co_return std::nullopt;
  co_return situation;
}

// The client may still have every scope the waiting request asked for:
// one the operator took away since is not granted (17.5.1).
bool scopes_still_allowed(const OAuthClientRecord& client,
                          const AuthorizationParameters& parameters) {
  return std::all_of(parameters.scopes.begin(), parameters.scopes.end(), [&](const auto& scope) {
    return std::find(client.scopes.begin(), client.scopes.end(), scope) != client.scopes.end();
  });
}

// A waiting request and what its decision reads, or the step to answer
// instead (an expired request, a deleted client, the database).
struct Resumed {
  std::optional<AuthorizationStep> answer;
  std::optional<AuthorizationParameters> parameters;
  AuthorizationRequestRecord record;
  Situation situation;
};

boost::asio::awaitable<Resumed> resume(AuthContext& ctx, std::string_view request_id,
                                       const std::optional<std::string>& token) {
  Resumed resumed;
  Sha256Digest digest = sha256(request_id);
  std::optional<AuthorizationRequestRecord> record;
  Millis now = now_millis();
  auto work = [&](Transaction& tx) {
    record = tx.authorization_requests().by_id(digest);
    if (!record || record->expires_at <= now) return;
    resumed.situation.client = tx.oauth_clients().by_id(record->client_id);
    resumed.situation.browser = live_browser_session(tx, token, now);
    if (resumed.situation.client && resumed.situation.browser)
      resumed.situation.consent =
          tx.consents().get(resumed.situation.browser->user.id, record->client_id);
  };
  if (co_await ctx.db.read(work) != StoreStatus::ok) {
    resumed.answer = unavailable();
    co_return resumed;
  }
  if (!record || record->expires_at <= now || !resumed.situation.client ||
      !(resumed.parameters = parameters_from_json(record->parameters)) ||
      !redirect_uri_matches(*resumed.situation.client, resumed.parameters->redirect_uri) ||
      !scopes_still_allowed(*resumed.situation.client, *resumed.parameters)) {
    resumed.answer = error_page(std::string(kExpiredRequest));
    co_return resumed;
  }
  resumed.record = std::move(*record);
  co_return resumed;
}

}  // namespace

boost::asio::awaitable<AuthorizationStep> authorize(AuthContext& ctx, RequestParameters request,
                                                    const std::optional<std::string>& session_token,
                                                    const EventSource& source) {
  // 17.4: a wrong client or redirect URI is told on authd's page: a
  // redirect there could deliver an error, or worse, anywhere.
  auto client_id = request.values.find("client_id");
  auto redirect_uri = request.values.find("redirect_uri");
  auto sent_twice = [&](std::string_view name) {
    return std::find(request.repeated.begin(), request.repeated.end(), name) !=
           request.repeated.end();
  };
  if (client_id == request.values.end() || sent_twice("client_id"))
    co_return error_page("The application's sign-in request has no valid client_id.");
  if (redirect_uri == request.values.end() || sent_twice("redirect_uri"))
    co_return error_page("The application's sign-in request has no valid redirect_uri.");
  // 17.3: client ids are UUIDs; anything else is not looked up (a NUL or
  // a byte that is not UTF-8 would fail PostgreSQL's query, not match).
  if (!is_canonical_uuid(client_id->second))
    co_return error_page("The application that sent you here is not registered with authd.");
  std::optional<Situation> situation =
      co_await read_situation(ctx, client_id->second, session_token);
  if (!situation) co_return unavailable();
  if (!situation->client)
    co_return error_page("The application that sent you here is not registered with authd.");
  if (!redirect_uri_matches(*situation->client, redirect_uri->second))
    co_return error_page(
        "The application asked to send you back to an address it did not register.");

  AuthorizationParameters parameters;
  parameters.redirect_uri = redirect_uri->second;
  if (auto error = check_authorization_parameters(request.values, request.repeated,
                                                  *situation->client, parameters))
    co_return error_redirect(ctx.policy, parameters.redirect_uri,
                             returnable_state(request.values, request.repeated), error->error,
                             error->description);
  Decision decision(ctx, std::move(parameters), source);
  co_return co_await decision.decide(*situation, std::nullopt, std::nullopt);
}

boost::asio::awaitable<AuthorizationStep> resume_authorization(
    AuthContext& ctx, std::string_view request_id, const std::optional<std::string>& session_token,
    const EventSource& source) {
  Resumed resumed = co_await resume(ctx, request_id, session_token);
  if (resumed.answer) co_return std::move(*resumed.answer);
  Decision decision(ctx, std::move(*resumed.parameters), source);
  AuthorizationStep step = co_await decision.decide(resumed.situation, resumed.record.created_at,
                                                    resumed.record.id_digest);
  if (step.kind == AuthorizationStep::Kind::sign_in ||
      step.kind == AuthorizationStep::Kind::consent)
    step.request_id = std::string(request_id);
  co_return step;
}

boost::asio::awaitable<AuthorizationStep> answer_consent(
    AuthContext& ctx, std::string_view request_id, bool allow,
    const std::optional<std::string>& session_token, const EventSource& source) {
  Resumed resumed = co_await resume(ctx, request_id, session_token);
  if (resumed.answer) co_return std::move(*resumed.answer);
  // A request that waits for a sign-in (prompt=login, max_age) is not
  // answered by the session it waits to replace (17.5).
  if (!fresh_enough(*resumed.parameters, resumed.situation.browser, resumed.record.created_at,
                    now_millis()))
    co_return sign_in_step(request_id);
  Decision decision(ctx, std::move(*resumed.parameters), source);
  if (allow)
    co_return co_await decision.issue_code(*resumed.situation.browser, resumed.record.id_digest,
                                           Decision::Consent::given_now);
  auto forget = [&](Transaction& tx) {
    tx.authorization_requests().remove(resumed.record.id_digest);
  };
  if (co_await ctx.db.write(forget) != StoreStatus::ok) co_return unavailable();
  co_return error_redirect(ctx.policy, decision.parameters().redirect_uri,
                           decision.parameters().state, "access_denied",
                           "the user did not allow the request");
}

boost::asio::awaitable<ConsentPrompt> consent_prompt(
    AuthContext& ctx, std::string_view request_id,
    const std::optional<std::string>& session_token) {
  ConsentPrompt prompt;
  Resumed resumed = co_await resume(ctx, request_id, session_token);
  if (resumed.answer) {
    prompt.step = std::move(*resumed.answer);
    co_return prompt;
  }
  if (!fresh_enough(*resumed.parameters, resumed.situation.browser, resumed.record.created_at,
                    now_millis())) {
    prompt.step = sign_in_step(request_id);
    co_return prompt;
  }
  prompt.step.kind = AuthorizationStep::Kind::consent;
  prompt.step.request_id = std::string(request_id);
  prompt.client_name = resumed.situation.client->name;
  prompt.scopes = resumed.parameters->scopes;
  prompt.redirect_uri = resumed.parameters->redirect_uri;
  co_return prompt;
}

}  // namespace authd
