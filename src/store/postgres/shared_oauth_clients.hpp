// The client lookups of one read batch in one statement
// (shared_statement.hpp), as its access-token lookups share theirs
// (shared_access_tokens.hpp): every request that authenticates a client
// (introspection, revocation, the token endpoint) reads the client by its
// id, and a batch of them costs PostgreSQL one statement instead of one
// each (docs/design/performance-choices.md#postgresql-client-lookups-in-one-statement).
// Only canonical UUIDs share it (OAuthClients::by_id): a unit's input can
// then not make the shared statement fail for the others.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "store/areas/oauth_clients.hpp"
#include "store/postgres/shared_statement.hpp"

namespace authd::postgres {

class Connection;

class SharedOAuthClients {
 public:
  // As OAuthClientStore::by_id.
  std::optional<OAuthClientRecord> by_id(Connection& db, PipelineTurns& turns, std::string_view id);
  // The same for a read alone, or in a write: its own statement.
  static std::optional<OAuthClientRecord> by_id_alone(Connection& db, std::string_view id);

 private:
  using Shared = SharedStatement<std::string, std::optional<OAuthClientRecord>>;
  static void look_up(Connection& db, Shared::Group& group);

  Shared lookups_;
};

}  // namespace authd::postgres
