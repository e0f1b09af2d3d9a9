// The sessions area: one row per bearer token, keyed by the token's digest.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class SessionStore {
 public:
  virtual ~SessionStore() = default;

  virtual void insert(const SessionRecord& session) = 0;
  // The user of the unrevoked session with this digest, expired or not, in
  // one statement. In a write transaction the user's row is locked, as by
  // UserStore::by_id.
  virtual std::optional<SessionUser> user_of(const Sha256Digest& digest) = 0;
  // The unrevoked session with this digest, expired or not (the OpenID
  // provider's view of the browser's session: its public id, when it signed
  // in and how, interface.md 17.5, 17.8).
  virtual std::optional<SessionRecord> record_of(const Sha256Digest& digest) = 0;
  // POST /logout. False when no unrevoked session has that digest. A revoked
  // session is never found again; whether its row stays until pruned (SQLite
  // marks it) or goes at once (PostgreSQL deletes it) is the backend's.
  virtual bool revoke(const Sha256Digest& digest, Millis now) = 0;
  // POST /logout in one step: revokes the session with this digest when it
  // is live at `now` (unrevoked, unexpired, its user enabled) and returns
  // that user; otherwise changes nothing. On PostgreSQL one statement,
  // which locks the session's row only.
  virtual std::optional<UserRecord> revoke_live(const Sha256Digest& digest, Millis now) = 0;
  virtual void delete_of_user(std::string_view user_id) = 0;
  // GET /sessions: the user's sessions neither revoked nor expired at
  // `now`, newest first, every column read back.
  virtual std::vector<SessionRecord> list_live_of_user(std::string_view user_id, Millis now) = 0;
  // DELETE /sessions/{id}: revokes the live session with this public id if
  // it is the user's; false otherwise (another user's, unknown, expired or
  // already revoked: the caller cannot tell which).
  virtual bool revoke_by_public_id_of_user(std::string_view user_id, std::string_view public_id,
                                           Millis now) = 0;
  // DELETE /sessions and POST /password: revokes every session of the user
  // but the one with `kept`; returns how many were revoked.
  virtual std::int64_t revoke_others_of_user(std::string_view user_id, const Sha256Digest& kept,
                                             Millis now) = 0;
  // DELETE /admin/sessions/{id}: revokes the live session with this public
  // id, whoever's it is.
  // Returns the session's user, none when no live session has that id.
  virtual std::optional<std::string> revoke_by_public_id(std::string_view public_id,
                                                         Millis now) = 0;
  // Sessions neither revoked nor expired at `now` (GET /metrics).
  virtual std::int64_t live_count(Millis now) = 0;
  // Removes the sessions expired at `now`, revoked or not; returns the rows
  // removed.
  virtual std::int64_t prune(Millis now) = 0;
};

}  // namespace authd
