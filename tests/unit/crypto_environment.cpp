// Initialises libsodium once for every unit test (init_crypto is idempotent).
#include <gtest/gtest.h>

#include "crypto/random.hpp"

namespace {

class CryptoEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { authd::init_crypto(); }
};

// Registered before main() runs RUN_ALL_TESTS (gtest_main), as GoogleTest allows.
[[maybe_unused]] ::testing::Environment* const kCrypto =
    ::testing::AddGlobalTestEnvironment(new CryptoEnvironment);

}  // namespace
