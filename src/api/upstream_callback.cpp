// GET /signin/{name}/callback (interface.md 18.2): the browser back from
// the upstream. The flow's state is taken once, with the binder cookie of
// the browser that started it; the code is exchanged and the answer
// verified; then the linking rules (18.3) sign in, or link for the caller
// who started a link (18.4). A sign-in sets the session cookie (13.5) and
// continues the waiting authorization request (17.5) or goes to its return
// path on authd's own origin; an account with a second factor is asked for
// it first (18.2.5, api/upstream_second_factor.cpp).
#include "api/credentials.hpp"
#include "api/errors.hpp"
#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "api/upstream_pages.hpp"
#include "auth/upstream/kept_tokens.hpp"
#include "core/log.hpp"
#include "core/wipe.hpp"
#include "upstream/flows.hpp"

namespace authd {
namespace {

ApiResponse callback_refused(const UpstreamCallback& callback, std::string_view provider) {
  using Kind = UpstreamCallback::Kind;
  if (callback.kind == Kind::unavailable) return unavailable_page();
  const char* reason = "unknown_state";
  std::string_view message =
      "This sign-in has expired or was already used. Go back and sign in again.";
  switch (callback.kind) {
    case Kind::replayed:
      reason = "replayed";
      break;
    case Kind::expired:
      reason = "expired";
      break;
    case Kind::wrong_browser:
      reason = "wrong_browser";
      message = "This sign-in was started in another browser. Sign in again from this one.";
      break;
    case Kind::refused:
      reason = "refused";
      message =
          "The sign-in provider's answer could not be accepted. Try again, or sign in "
          "another way.";
      break;
    default:
      break;
  }
  log::warn("upstream_callback_refused",
            {{"provider", provider}, {"reason", reason}, {"detail", callback.refusal}});
  return error_page(callback.kind == Kind::refused ? 502 : 400, message);
}

std::string_view refusal_message(const UpstreamSession& session) {
  switch (session.outcome) {
    case UpstreamSignInOutcome::link_from_account:
      return "An account with this e-mail address already exists. Sign in with it the usual "
             "way, then link this sign-in provider from your account.";
    case UpstreamSignInOutcome::signup_closed:
      return "No account is linked to this sign-in, and new accounts cannot be created this "
             "way. Ask your administrator.";
    case UpstreamSignInOutcome::no_email:
      return "The sign-in provider did not share an e-mail address, which a new account needs.";
    case UpstreamSignInOutcome::account_disabled:
      return "This account is disabled. Contact your administrator.";
    default:
      return "This sign-in could not be completed. Sign in another way.";
  }
}

boost::asio::awaitable<ApiResponse> sign_in(ApiContext& ctx, ApiRequest& request,
                                            const UpstreamProvider& provider,
                                            const UpstreamCallback& callback) {
  const SessionOrigin origin{request.client_address, request.user_agent};
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  UpstreamSession session =
      co_await complete_upstream_sign_in(ctx.auth, provider, callback.identity, origin, source);
  WipeOnExit wipe_token(session.token);
  if (session.kind == UpstreamSession::Kind::unavailable) co_return unavailable_page();
  if (session.kind == UpstreamSession::Kind::second_factor_required) {  // 18.2.5
    // 18.5.1: the link stands (the provider proved its subject), so its
    // tokens are kept now; the session still waits for the factor.
    co_await keep_upstream_tokens(ctx.auth, provider.name, callback.identity.subject,
                                  callback.tokens);
    co_return co_await ask_second_factor(ctx, request, callback.flow, session.user->id);
  }
  if (session.kind == UpstreamSession::Kind::refused)
    co_return error_page(403, refusal_message(session));
  co_await keep_upstream_tokens(ctx.auth, provider.name, callback.identity.subject,
                                callback.tokens);  // 18.5
  ApiResponse response = redirect_to(continuation(*ctx.upstreams, callback.flow));
  if (request.session_cookie != nullptr) {
    auto lifetime =
        std::chrono::duration_cast<std::chrono::seconds>(ctx.auth.policy.session_lifetime);
    response.headers.emplace_back(
        "Set-Cookie", session_cookie_header(*request.session_cookie, session.token, lifetime));
  }
  response.holds_secret = true;
  co_return response;
}

// 18.4: the link goes to the account that started it, and only while that
// browser is still signed in to it.
boost::asio::awaitable<ApiResponse> link(ApiContext& ctx, ApiRequest& request,
                                         const UpstreamProvider& provider,
                                         const UpstreamCallback& callback) {
  std::optional<std::string> token;
  if (request.session_cookie != nullptr && request.session_cookies.size() == 1)
    token = std::string(request.session_cookies.front());
  if (!token) co_return error_page(403, "Sign in to your account first, then link again.");
  WipeOnExit wipe_token(*token);
  SessionOutcome who = co_await authenticate(ctx.auth, *token);
  if (who.kind == SessionOutcome::Kind::unavailable) co_return unavailable_page();
  if (who.kind != SessionOutcome::Kind::ok || who.user.id != callback.flow.user_id)
    co_return error_page(403, "Sign in to your account first, then link again.");
  const EventSource source = event_source(ctx, request, std::string(kActorSelf));
  LinkOutcome outcome = co_await complete_upstream_link(ctx.auth, provider, callback.flow.user_id,
                                                        callback.identity, source);
  switch (outcome) {
    case LinkOutcome::linked:
    case LinkOutcome::already_linked_here:
      co_await keep_upstream_tokens(ctx.auth, provider.name, callback.identity.subject,
                                    callback.tokens);  // 18.5
      co_return redirect_to(continuation(*ctx.upstreams, callback.flow));
    case LinkOutcome::linked_to_another_account:
      co_return error_page(409, "This sign-in is already linked to another account.");
    case LinkOutcome::no_account:
      co_return error_page(403, "Sign in to your account first, then link again.");
    case LinkOutcome::unavailable:
      break;
  }
  co_return unavailable_page();
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_upstream_callback(ApiContext& ctx, ApiRequest& request) {
  const UpstreamProvider* provider = provider_of(ctx, request);
  if (provider == nullptr) co_return error_response(404);
  std::optional<FormParameters> query = parse_form(request.query);
  const std::string* state = query ? query->find("state") : nullptr;
  if (state == nullptr || state->empty() || query->is_repeated("state") ||
      query->is_repeated("code"))
    co_return error_page(400,
                         "This sign-in has expired or was already used. Go back and sign "
                         "in again.");
  std::optional<std::string> code;
  if (const std::string* given = query->find("code"); given != nullptr && !given->empty())
    code = *given;
  WipeOnExit wipe_code(code);
  std::optional<std::string> binder = binder_of(request);
  WipeOnExit wipe_binder(binder);
  UpstreamCallback callback =
      co_await finish_upstream_flow(ctx.auth, *ctx.upstreams, *provider, *state, binder, code);
  ApiResponse response;
  if (callback.kind != UpstreamCallback::Kind::ok) {
    response = callback_refused(callback, provider->name);
  } else if (callback.flow.purpose == kUpstreamPurposeLink) {
    response = co_await link(ctx, request, *provider, callback);
  } else {
    response = co_await sign_in(ctx, request, *provider, callback);
  }
  // The binder is single use too: the browser forgets it, unless the flow
  // now waits for the second factor (18.2.5), whose answer sets it anew.
  if (!sets_binder(request, response))
    response.headers.emplace_back("Set-Cookie", binder_cookie(request, "", 0));
  co_return response;
}

}  // namespace authd
