// Sliding-window throttling (interface.md 6 /login 4 and /forgot 5). Every
// counted attempt is one stored event; a limit of N per window W is exceeded
// when N events lie in the last W. Counting happens in the database, so the
// limits hold across instances that share it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/policy.hpp"
#include "core/client_network.hpp"  // client_network(), which the client keys use
#include "core/duration.hpp"
#include "core/time.hpp"

namespace authd {

class Transaction;

struct ThrottleVerdict {
  bool allowed = true;
  std::chrono::seconds retry_after{0};  // when not allowed: until the window allows again
};

// Pure arithmetic. `times` are event times of one key, ascending: every
// event in the window, or only the newest `limit.count` of them (what
// check_throttle reads); the verdict is the same either way, since only the
// newest `limit.count` events decide it.
ThrottleVerdict evaluate_window(const std::vector<Millis>& times, Millis now, RateLimit limit);

// Both must allow; the wait is the longer one.
ThrottleVerdict combine(const ThrottleVerdict& a, const ThrottleVerdict& b);

// Reads the newest `limit.count` events of `key` in the window ending at
// `now` (never more: the read is bounded by the limit, not by how many
// attempts an attacker made) and evaluates them.
ThrottleVerdict check_throttle(Transaction& tx, std::string_view key, Millis now, RateLimit limit);

// Both limits of one key from one read (the newest events of the longest
// window, as many as the larger count): the same verdicts as two
// check_throttle calls, one round trip fewer. Both are always evaluated.
std::pair<ThrottleVerdict, ThrottleVerdict> check_throttles(Transaction& tx, std::string_view key,
                                                            Millis now, RateLimit first,
                                                            RateLimit second);

// Event keys, one namespace per counter. Client keys use client_network().
std::string login_email_key(std::string_view canonical_email);
std::string login_client_key(std::string_view client_address);
std::string forgot_client_key(std::string_view client_address);
std::string reset_mail_key(std::string_view canonical_email);
std::string signup_mail_key(std::string_view canonical_email);
std::string signin_mail_key(std::string_view canonical_email);  // interface.md 19.1

// One counter that a request counts in, and its limit.
struct ThrottleCounter {
  std::string key;
  RateLimit limit;
};

enum class ClientCounterKind { login, forgot, signup, passkey, email_signin, authorize };

// The per-client counters of `client_address`: its own (the key of
// login_client_key or forgot_client_key, or "signup:client:...") at `per_client`, and for an IPv6
// client those of its /56 and /48 at `per_client` times the factors, in the
// same window and namespace ("login:client:2001:db8:1:200::/56").
// An IPv4 client has one counter: each more costs a read and a write in
// every counted request's transaction.
std::vector<ThrottleCounter> client_counters(ClientCounterKind kind,
                                             std::string_view client_address, RateLimit per_client,
                                             Ipv6Aggregates aggregates);

// Evaluates every counter (all must allow; the wait is the longest).
ThrottleVerdict check_throttles(Transaction& tx, const std::vector<ThrottleCounter>& counters,
                                Millis now);

// Evaluates every counter and, when all allow, counts this request in each
// (a request that is limited whatever its outcome, e.g. a passkey
// challenge: interface.md 16.3.1).
ThrottleVerdict count_request(Transaction& tx, const std::vector<ThrottleCounter>& counters,
                              Millis now);

// An attempt at an account's password (a login, a password change),
// counted as a failed login up front (interface.md 6 /login 4, 11.1):
// the e-mail's counter, then the client's, are checked (on PostgreSQL each
// check locks its key, and every attempt takes them in this order) and,
// when all allow, an event is inserted in each. Reserving before hashing
// keeps the limit exact under many guesses at once; a success releases it.
// An attempt at a stored hash dearer than the server's own counts as
// `charge()` failures (interface.md 10.5: VerificationFloor::charge), as
// many events in each counter, but never more than the counter's limit
// (more would change no verdict). `charge` is called once the counters are
// checked (and locked), only when they allow; empty: 1. Allowed when each
// counter is below its limit, so each lets one attempt through a window.
struct ReservedFailure {
  ThrottleVerdict verdict;
  // When refused: the counter that refused (the e-mail's before the
  // client's), whose key and window the 429's event counts in (14.1).
  ThrottleCounter refused_by;
  std::vector<std::int64_t> email_events;
  std::vector<std::int64_t> client_events;

  // Un-counts this attempt (not a failed guess, e.g. a 403 or a 503).
  void release(Transaction& tx) const;
  // A success: clears the e-mail's count (this reservation with it) and
  // releases the client's reservation.
  void clear_on_success(Transaction& tx, std::string_view email_key) const;
};
ReservedFailure reserve_login_failure(Transaction& tx, std::string_view email_key,
                                      RateLimit per_email,
                                      const std::vector<ThrottleCounter>& per_client, Millis now,
                                      const std::function<int()>& charge = {});

// The same for an attempt that guesses at no e-mail's password (a passkey
// sign-in, interface.md 16.3.2): the client's counters only.
ReservedFailure reserve_client_failure(Transaction& tx,
                                       const std::vector<ThrottleCounter>& per_client, Millis now);

}  // namespace authd
