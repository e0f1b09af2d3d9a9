// The operator's console (interface.md 21.2): which accounts may sign in to
// it (`authd operator grant|revoke|list`), and who is behind a console
// session's cookie. The sign-in itself is a login (auth/login/login.hpp,
// ConsoleLogin).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "auth/admin/admin_keys.hpp"
#include "auth/context.hpp"
#include "auth/events/events.hpp"
#include "store/records.hpp"
#include "store/store.hpp"

namespace authd {

// The actor of the events a console session's requests record
// (interface.md 14.1, 21.2): "operator:EMAIL".
std::string operator_actor(std::string_view email);

struct OperatorListing {
  std::string email;
  OperatorRecord grant;
};

struct OperatorResult {
  enum class Kind { ok, not_found, unavailable } kind = Kind::unavailable;
  std::string message;                   // for the operator
  std::vector<OperatorListing> listing;  // list
};

// The CLI's side: synchronous, on the store. `email` is canonical. A grant
// to an account that has one already changes its scope; revoking ends the
// account's console sessions at once.
OperatorResult grant_operator(Store& store, std::string_view email, AdminScope scope,
                              const EventSource& source);
OperatorResult revoke_operator(Store& store, std::string_view email, const EventSource& source);
OperatorResult list_operators(Store& store);

// Who is behind a console session's token: a live session (not idle past
// --console-idle-timeout, not past its absolute end) of an enabled account
// that still holds its grant. Each use moves the idle end (written at most
// once per tenth of the idle time, at most once a minute).
struct ConsoleCaller {
  enum class Kind { ok, invalid, unavailable } kind = Kind::unavailable;
  std::string user_id;
  std::string email;
  AdminScope scope = AdminScope::read;
};
boost::asio::awaitable<ConsoleCaller> authenticate_console(AuthContext& ctx,
                                                           std::string_view token);

// Ends the session of `token` (console sign-out), recorded as
// console.signed_out; false when the database did not answer.
boost::asio::awaitable<bool> end_console_session(AuthContext& ctx, std::string_view token,
                                                 const EventSource& source);

}  // namespace authd
