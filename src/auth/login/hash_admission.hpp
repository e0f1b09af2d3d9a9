// Which stored hashes from other systems authd takes in (interface.md
// 10.5): a hash whose kind costs more than VerificationFloor::kRefusedAbove
// times the server's own argon2id to verify is refused (400, or an
// import's invalid line) unless --allow-costly-hashes is set, and a hash of
// a kind not stored yet is refused once kMostStoredKinds kinds are stored,
// or (import) once a run has brought kMostNewKindsPerRun new ones. A kind's
// cost is the one measured for the login floor when there is one (measured
// against the same own kind), else one verification of the given hash with
// a wrong password, timed beside the own kind's current cost. The problems
// name the kind (an algorithm and its cost parameters, never a salt or
// digest) and the rule.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "auth/context.hpp"

namespace authd {

class PasswordHasher;
class Store;

inline constexpr std::size_t kMostStoredKinds = 32;
inline constexpr std::size_t kMostNewKindsPerRun = 8;

// The detail of a refusal of `kind`, which costs `relative` times the own.
std::string costly_kind_problem(std::string_view kind, double relative);

// The admin API's check of a `passwordHash` (already read well-formed and
// within its caps).
struct HashAdmission {
  enum class Kind { admitted, refused, busy, unavailable } kind = Kind::unavailable;
  std::string problem;  // refused: the 400's detail
};
boost::asio::awaitable<HashAdmission> admit_stored_hash(AuthContext& ctx, const std::string& phc);

// `authd user import`'s check of each line's `passwordHash`, with the
// command's own argon2id parameters as the own kind.
class ImportedKinds {
 public:
  ImportedKinds(Store& store, const PasswordHasher& hasher, bool allow_costly);
  // Nothing when `phc` may be imported; else the line's reason. Sets
  // `store_failed` (and admits) when the store could not be read.
  std::optional<std::string> problem(const std::string& phc, bool& store_failed);

 private:
  bool read_stored();
  double cost_of(const std::string& kind, const std::string& phc);

  Store& store_;
  const PasswordHasher& hasher_;
  bool allow_costly_;
  bool read_ = false;
  std::map<std::string, std::optional<double>> stored_;  // measured against this own kind
  std::map<std::string, double> measured_;               // here, in this run
  std::set<std::string> new_admitted_;                   // kinds this run adds
  double own_ns_ = 0;
};

}  // namespace authd
