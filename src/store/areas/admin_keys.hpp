// The admin keys area (interface.md 10.2): operators' keys for the admin
// API, each stored only as the SHA-256 digest of the key, under a name.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace authd {

class AdminKeyStore {
 public:
  virtual ~AdminKeyStore() = default;

  virtual bool insert(const AdminKeyRecord& key) = 0;  // false: the name is taken
  virtual std::optional<AdminKeyRecord> by_digest(const Sha256Digest& digest) = 0;
  virtual std::vector<AdminKeyRecord> list() = 0;  // by name
  // Deletes the key: it is refused from the next request on. False when no
  // key has that name.
  virtual bool revoke(std::string_view name) = 0;
  virtual void mark_used(std::string_view name, Millis at) = 0;
};

}  // namespace authd
