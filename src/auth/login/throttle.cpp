#include "auth/login/throttle.hpp"

#include <algorithm>
#include <optional>

#include "auth/policy.hpp"
#include "core/client_network.hpp"
#include "store/store.hpp"

namespace authd {

Duration AuthPolicy::longest_window() const {
  return std::max({login_failures_per_email.window, login_failures_per_client.window,
                   forgot_requests_per_client.window, reset_mails_per_email_short.window,
                   reset_mails_per_email_long.window, signup_requests_per_client.window,
                   signup_mails_per_email_short.window, signup_mails_per_email_long.window,
                   email_signin_requests_per_client.window,
                   email_signin_mails_per_email_short.window,
                   email_signin_mails_per_email_long.window});
}

ThrottleVerdict evaluate_window(const std::vector<Millis>& times, Millis now, RateLimit limit) {
  Millis window_start = now - limit.window.count();
  auto in_window = std::upper_bound(times.begin(), times.end(), window_start);
  auto count = static_cast<std::size_t>(times.end() - in_window);
  if (count < static_cast<std::size_t>(limit.count)) return {};
  // The window allows again once all but limit-1 of these events have aged
  // out, i.e. when the (count - limit + 1)-th oldest leaves the window.
  Millis frees_at =
      *(in_window + static_cast<std::ptrdiff_t>(count - limit.count)) + limit.window.count();
  Millis wait_ms = std::max<Millis>(frees_at - now, 1);
  return {false, std::chrono::seconds((wait_ms + 999) / 1000)};
}

ThrottleVerdict combine(const ThrottleVerdict& a, const ThrottleVerdict& b) {
  return {a.allowed && b.allowed, std::max(a.allowed ? std::chrono::seconds(0) : a.retry_after,
                                           b.allowed ? std::chrono::seconds(0) : b.retry_after)};
}

ThrottleVerdict check_throttle(Transaction& tx, std::string_view key, Millis now, RateLimit limit) {
  return evaluate_window(tx.throttle().event_times(key, now - limit.window.count(), limit.count),
                         now, limit);
}

std::pair<ThrottleVerdict, ThrottleVerdict> check_throttles(Transaction& tx, std::string_view key,
                                                            Millis now, RateLimit first,
                                                            RateLimit second) {
  // The newest `count` events of each window are among the newest
  // max(count) events of the longer one, so one read serves both.
  Millis after = now - std::max(first.window, second.window).count();
  std::vector<Millis> times =
      tx.throttle().event_times(key, after, std::max(first.count, second.count));
  return {evaluate_window(times, now, first), evaluate_window(times, now, second)};
}

namespace {

constexpr std::string_view kLoginClientNamespace = "login:client:";
constexpr std::string_view kForgotClientNamespace = "forgot:client:";
constexpr std::string_view kSignupClientNamespace = "signup:client:";
constexpr std::string_view kPasskeyClientNamespace = "passkey:client:";
constexpr std::string_view kEmailSigninClientNamespace = "signin-mail:client:";
constexpr std::string_view kAuthorizeClientNamespace = "authorize:client:";

std::string_view client_namespace(ClientCounterKind kind) {
  switch (kind) {
    case ClientCounterKind::login:
      return kLoginClientNamespace;
    case ClientCounterKind::forgot:
      return kForgotClientNamespace;
    case ClientCounterKind::passkey:
      return kPasskeyClientNamespace;
    case ClientCounterKind::email_signin:
      return kEmailSigninClientNamespace;
    case ClientCounterKind::authorize:
      return kAuthorizeClientNamespace;
    case ClientCounterKind::signup:
      break;
  }
  return kSignupClientNamespace;
}

}  // namespace

std::vector<ThrottleCounter> client_counters(ClientCounterKind kind,
                                             std::string_view client_address, RateLimit per_client,
                                             Ipv6Aggregates aggregates) {
  const std::string_view name_space = client_namespace(kind);
  std::vector<ThrottleCounter> counters;
  counters.push_back({std::string(name_space) + client_network(client_address), per_client});
  auto add = [&](int prefix, unsigned factor) {
    if (factor == 0) return;
    auto network = ipv6_network(client_address, prefix);
    if (!network) return;
    counters.push_back({std::string(name_space) + *network,
                        {per_client.count * static_cast<int>(factor), per_client.window}});
  };
  add(56, aggregates.per_56);
  add(48, aggregates.per_48);
  return counters;
}

ThrottleVerdict check_throttles(Transaction& tx, const std::vector<ThrottleCounter>& counters,
                                Millis now) {
  ThrottleVerdict verdict;
  for (const ThrottleCounter& counter : counters)
    verdict = combine(verdict, check_throttle(tx, counter.key, now, counter.limit));
  return verdict;
}

ThrottleVerdict count_request(Transaction& tx, const std::vector<ThrottleCounter>& counters,
                              Millis now) {
  ThrottleVerdict verdict = check_throttles(tx, counters, now);
  if (!verdict.allowed) return verdict;
  for (const ThrottleCounter& counter : counters) tx.throttle().add_event(counter.key, now);
  return verdict;
}

namespace {

// As check_throttles, noting the first counter that refuses.
ThrottleVerdict check_noting_refusal(Transaction& tx, const std::vector<ThrottleCounter>& counters,
                                     Millis now, ReservedFailure& reserved) {
  ThrottleVerdict verdict;
  for (const ThrottleCounter& counter : counters) {
    ThrottleVerdict one = check_throttle(tx, counter.key, now, counter.limit);
    if (!one.allowed && reserved.refused_by.key.empty()) reserved.refused_by = counter;
    verdict = combine(verdict, one);
  }
  return verdict;
}

}  // namespace

ReservedFailure reserve_client_failure(Transaction& tx,
                                       const std::vector<ThrottleCounter>& per_client, Millis now) {
  ReservedFailure reserved;
  reserved.verdict = check_noting_refusal(tx, per_client, now, reserved);
  if (!reserved.verdict.allowed) return reserved;
  for (const ThrottleCounter& counter : per_client)
    reserved.client_events.push_back(tx.throttle().insert_event(counter.key, now));
  return reserved;
}

namespace {

// `charge` events of `key`, at most `limit.count` of them.
void insert_charged(Transaction& tx, std::string_view key, RateLimit limit, int charge, Millis now,
                    std::vector<std::int64_t>& events) {
  int count = std::clamp(charge, 1, std::max(limit.count, 1));
  for (int i = 0; i < count; ++i) events.push_back(tx.throttle().insert_event(key, now));
}

}  // namespace

ReservedFailure reserve_login_failure(Transaction& tx, std::string_view email_key,
                                      RateLimit per_email,
                                      const std::vector<ThrottleCounter>& per_client, Millis now,
                                      const std::function<int()>& charge) {
  ReservedFailure reserved;
  ThrottleVerdict by_email = check_throttle(tx, email_key, now, per_email);
  if (!by_email.allowed) reserved.refused_by = {std::string(email_key), per_email};
  reserved.verdict = combine(by_email, check_noting_refusal(tx, per_client, now, reserved));
  if (!reserved.verdict.allowed) return reserved;
  const int failures = charge ? charge() : 1;
  insert_charged(tx, email_key, per_email, failures, now, reserved.email_events);
  for (const ThrottleCounter& counter : per_client)
    insert_charged(tx, counter.key, counter.limit, failures, now, reserved.client_events);
  return reserved;
}

void ReservedFailure::release(Transaction& tx) const {
  for (std::int64_t event : email_events) tx.throttle().delete_event(event);
  for (std::int64_t event : client_events) tx.throttle().delete_event(event);
}

void ReservedFailure::clear_on_success(Transaction& tx, std::string_view email_key) const {
  tx.throttle().delete_events(email_key);
  for (std::int64_t event : client_events) tx.throttle().delete_event(event);
}

std::string login_email_key(std::string_view email) { return "login:email:" + std::string(email); }
std::string login_client_key(std::string_view client) {
  return std::string(kLoginClientNamespace) + client_network(client);
}
std::string forgot_client_key(std::string_view client) {
  return std::string(kForgotClientNamespace) + client_network(client);
}
std::string reset_mail_key(std::string_view email) { return "mail:reset:" + std::string(email); }
std::string signup_mail_key(std::string_view email) { return "mail:signup:" + std::string(email); }
std::string signin_mail_key(std::string_view email) { return "mail:signin:" + std::string(email); }

}  // namespace authd
