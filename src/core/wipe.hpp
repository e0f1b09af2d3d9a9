// Zeroing secrets (passwords, tokens) once they are no longer needed, with
// libsodium's sodium_memzero, which the compiler may not optimise away.
// std::string can leave copies behind (small-string buffers, reallocation);
// this is best effort on the buffers authd controls.
#pragma once

#include <optional>
#include <string>

#include <sodium.h>

namespace authd {

inline void wipe(std::string& secret) { sodium_memzero(secret.data(), secret.size()); }

// Wipes a secret when the scope ends, on every path out (early returns and
// exceptions included). For an optional, whatever value it holds then: the
// guard is often made before the value is read into it.
class WipeOnExit {
 public:
  explicit WipeOnExit(std::string& secret) : secret_(&secret) {}
  explicit WipeOnExit(std::optional<std::string>& secret) : optional_(&secret) {}
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;
  ~WipeOnExit() {
    if (secret_ != nullptr) wipe(*secret_);
    if (optional_ != nullptr && optional_->has_value()) wipe(**optional_);
  }

 private:
  std::string* secret_ = nullptr;
  std::optional<std::string>* optional_ = nullptr;
};

}  // namespace authd
