#include "auth/events/event_log.hpp"

#include <array>
#include <charconv>

#include "core/ascii.hpp"
#include "crypto/random.hpp"
#include "store/database.hpp"

namespace authd {
namespace {

constexpr std::array<std::string_view, 35> kEventTypes = {
    "login.succeeded", "login.failed", "login.email_requested", "logout", "session.revoked",
    "password.reset_requested", "password.reset", "password.changed", "email.changed",
    "mfa.enabled", "mfa.disabled", "recovery_code.used", "signup.requested", "signup.verified",
    "user.created", "user.updated", "user.disabled", "user.enabled", "user.deleted",
    "admin_key.created", "admin_key.revoked",
    // The OpenID provider (interface.md 17): its clients, their
    // authorizations and consents, its signing keys.
    "oauth.client_created", "oauth.client_updated", "oauth.client_secret_rotated",
    "oauth.client_deleted", "oauth.client_auth_failed", "oauth.authorized", "oauth.consent_granted",
    "oauth.consent_revoked", "oauth.code_reused", "oidc.signing_keys_rotated",
    // The token lifecycle (17.10, 17.11).
    "oauth.refresh_token_reused", "oauth.token_revoked",
    // Upstream identity providers' links (18.4).
    "identity.linked", "identity.unlinked"};

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// One page of `filter`: one event more than asked tells whether another
// page follows, without a count.
EventPage page_of(std::vector<EventRecord> events, int limit) {
  EventPage page;
  page.ok = true;
  page.events = std::move(events);
  if (page.events.size() > static_cast<std::size_t>(limit)) {
    page.events.resize(static_cast<std::size_t>(limit));
    page.next_cursor = std::to_string(page.events.back().seq);
  }
  return page;
}

}  // namespace

bool is_event_type(std::string_view type) {
  for (std::string_view known : kEventTypes)
    if (known == type) return true;
  return false;
}

std::optional<EventFilter> event_filter(const EventQuery& query, std::string& problem) {
  EventFilter filter;
  if (query.user_id) {
    std::string id = *query.user_id;
    for (char& c : id) c = ascii_lower(c);  // UUIDs are case-insensitive on input
    if (!is_canonical_uuid(id)) {
      problem = "userId: not a user id";
      return std::nullopt;
    }
    filter.user_id = std::move(id);
  }
  if (query.type) {
    if (!is_event_type(*query.type)) {
      problem = "type: not an event type";
      return std::nullopt;
    }
    filter.type = *query.type;
  }
  if (query.since) {
    filter.since = parse_rfc3339(*query.since);
    if (!filter.since) {
      problem = "since: not an RFC 3339 time such as 2026-01-31T12:00:00Z";
      return std::nullopt;
    }
  }
  if (query.limit) {
    std::optional<std::int64_t> limit = whole_number(*query.limit);
    if (!limit || *limit < 1 || *limit > kLargestEventPage) {
      problem = "limit: a whole number from 1 to 1000";
      return std::nullopt;
    }
    filter.limit = static_cast<int>(*limit);
  } else {
    filter.limit = kDefaultEventPage;
  }
  if (query.cursor) {
    filter.before_seq = whole_number(*query.cursor);
    if (!filter.before_seq) {
      problem = "cursor: not one authd gave";
      return std::nullopt;
    }
  }
  return filter;
}

boost::asio::awaitable<EventPage> list_events(AuthContext& ctx, const EventFilter& filter) {
  EventFilter one_more = filter;
  one_more.limit = filter.limit + 1;
  std::vector<EventRecord> events;
  auto read = [&](Transaction& tx) { events = tx.events().list(one_more); };
  if (co_await ctx.db.read_aside(read) != StoreStatus::ok) co_return EventPage{};
  co_return page_of(std::move(events), filter.limit);
}

EventPage list_events(Store& store, const EventFilter& filter) {
  EventFilter one_more = filter;
  one_more.limit = filter.limit + 1;
  std::vector<EventRecord> events;
  if (store.run(Store::Mode::read, [&](Transaction& tx) { events = tx.events().list(one_more); }) !=
      StoreStatus::ok)
    return EventPage{};
  return page_of(std::move(events), filter.limit);
}

}  // namespace authd
