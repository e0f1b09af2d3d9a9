// Sliding-window throttling (decisions.md 6 /login 4 and /forgot 5). Every
// counted attempt is one stored event; a limit of N per window W is exceeded
// when N events lie in the last W. Counting happens in the database, so the
// limits hold across instances that share it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The part of a client address that per-client limits count: the whole
// IPv4 address, but an IPv6 address's /64 network, since one subscriber
// usually holds a whole /64 and could otherwise rotate through it.
std::string client_network(std::string_view address);

// Event keys, one namespace per counter. Client keys use client_network().
std::string login_email_key(std::string_view canonical_email);
std::string login_client_key(std::string_view client_address);
std::string forgot_client_key(std::string_view client_address);
std::string reset_mail_key(std::string_view canonical_email);

}  // namespace authd
