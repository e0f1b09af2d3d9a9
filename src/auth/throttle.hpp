// Sliding-window throttling (decisions.md 6 /login 4 and /forgot 5). Every
// counted attempt is one stored event; a limit of N per window W is exceeded
// when N events lie in the last W. Counting happens in the database, so the
// limits hold across instances that share it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "auth/policy.hpp"
#include "core/duration.hpp"
#include "core/time.hpp"

namespace authd {

class Transaction;

struct ThrottleVerdict {
  bool allowed = true;
  std::chrono::seconds retry_after{0};  // when not allowed: until the window allows again
};

// Pure arithmetic. `times` are the event times in the window, ascending.
ThrottleVerdict evaluate_window(const std::vector<Millis>& times, Millis now, RateLimit limit);

// Both must allow; the wait is the longer one.
ThrottleVerdict combine(const ThrottleVerdict& a, const ThrottleVerdict& b);

// Reads the events of `key` in the window ending at `now` and evaluates them.
ThrottleVerdict check_throttle(Transaction& tx, std::string_view key, Millis now, RateLimit limit);

// The part of a client address that per-client limits count: the whole
// IPv4 address, but an IPv6 address's /64 network, since one subscriber
// usually holds a whole /64 and could otherwise rotate through it.
std::string client_network(std::string_view address);

// Event keys, one namespace per counter. Client keys use client_network().
std::string login_email_key(std::string_view canonical_email);
std::string login_client_key(std::string_view client_address);
std::string forgot_client_key(std::string_view client_address);
std::string reset_mail_key(std::string_view canonical_email);

// One counter that a request counts in, and its limit.
struct ThrottleCounter {
  std::string key;
  RateLimit limit;
};

enum class ClientCounterKind { login, forgot };

// The per-client counters of `client_address`: its own (the key of
// login_client_key or forgot_client_key) at `per_client`, and for an IPv6
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

}  // namespace authd
