// The warm argon2 memory (crypto/warm_argon2_memory.hpp): the one test
// program that links it, as the authd executable does, so that its mmap and
// munmap are the interposed ones here and nowhere else among the tests.
// - argon2id hashes stay standard PHC strings both ways (interface.md 4.1):
//   authd's hashes, made in fresh or in a worker's reused memory, verify with
//   an independent implementation (the reference argon2 library through
//   python3-argon2), and that implementation's hashes verify in authd;
// - a hashing worker faults in no fresh pages after its first hash, and the
//   reuse is counted (authd_argon2_memory_reused_total).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "crypto/argon2_memory.hpp"
#include "crypto/password_hasher.hpp"
#include "crypto/random.hpp"
#include "crypto/warm_argon2_memory.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

// libsodium initialised, and the warm memory installed as authd serve does
// with --argon2-warm-memory on, before any test starts a thread.
class WarmMemoryEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    init_crypto();
    install_warm_argon2_memory();
  }
};

[[maybe_unused]] ::testing::Environment* const kWarmMemory =
    ::testing::AddGlobalTestEnvironment(new WarmMemoryEnvironment);

// Runs python3 with `script`, feeding `input` on stdin (secrets stay out of
// argv); returns its exit status and stdout.
std::pair<int, std::string> python(const std::string& script, const std::string& input) {
  fs::path file = fs::temp_directory_path() / ("authd-argon2-" + std::to_string(::getpid()));
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fputs(input.c_str(), f);
    std::fclose(f);
  }
  // Debian's interpreter, where python3-argon2 is installed (not a pyenv shim).
  std::string command = "/usr/bin/python3 -c '" + script + "' < " + file.string();
  std::FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[512];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  int status = pipe ? ::pclose(pipe) : -1;
  fs::remove(file);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Reads "password\nphc" on stdin; exits 0 when the reference argon2 library
// verifies it, 1 when it does not, 3 when python3-argon2 is missing.
const char* kVerifyScript =
    "import sys\n"
    "try:\n"
    "    import argon2\n"
    "except ImportError:\n"
    "    sys.exit(3)\n"
    "password, phc = sys.stdin.read().split(\"\\n\")[:2]\n"
    "try:\n"
    "    argon2.PasswordHasher().verify(phc, password)\n"
    "except argon2.exceptions.VerificationError:\n"
    "    sys.exit(1)\n";

// Reads "m t password" on stdin; prints the reference library's PHC string.
const char* kHashScript =
    "import sys\n"
    "try:\n"
    "    import argon2\n"
    "except ImportError:\n"
    "    sys.exit(3)\n"
    "m, t, password = sys.stdin.read().split(\" \", 2)\n"
    "print(argon2.PasswordHasher(time_cost=int(t), memory_cost=int(m), parallelism=1,\n"
    "      hash_len=32, salt_len=16, type=argon2.Type.ID).hash(password))\n";

class Argon2Interop : public ::testing::TestWithParam<Argon2Params> {};

// Runs `fn` on a thread that reuses its argon2 memory, as the hashing pool's
// workers do, so that every hash after the first runs in memory dirtied by
// the one before.
template <class Fn>
void on_hashing_worker(Fn fn) {
  std::thread worker([&] {
    reuse_argon2_memory_on_this_thread();
    fn();
  });
  worker.join();
}

// interface.md 4.1: authd's PHC strings are standard argon2id: another
// implementation verifies them (and refuses a wrong password), including
// those made in a hashing worker's reused memory.
TEST_P(Argon2Interop, Interface_4_1_AuthdHashesVerifyWithTheReferenceImplementation) {
  PasswordHasher hasher(GetParam());
  std::vector<std::string> hashes;
  hashes.push_back(hasher.hash("correct horse battery staple"));  // fresh memory
  on_hashing_worker([&] {
    for (int i = 0; i < 3; ++i) hashes.push_back(hasher.hash("correct horse battery staple"));
  });
  for (const std::string& phc : hashes) {
    auto [status, out] = python(kVerifyScript, "correct horse battery staple\n" + phc);
    ASSERT_NE(status, 3) << "python3-argon2 is missing (apt-get install python3-argon2)";
    EXPECT_EQ(status, 0) << phc << " " << out;
  }
  auto [wrong, ignored] = python(kVerifyScript, "Correct horse battery staple\n" + hashes.back());
  EXPECT_EQ(wrong, 1);
}

// interface.md 4.1: standard argon2id PHC strings made elsewhere verify in
// authd, on a fresh thread and in a hashing worker's reused memory, and a hash
// made with authd's own parameters needs no upgrade.
TEST_P(Argon2Interop, Interface_4_1_ReferenceHashesVerifyInAuthd) {
  const Argon2Params& p = GetParam();
  auto [status, phc] =
      python(kHashScript, std::to_string(p.memory_kib) + " " + std::to_string(p.iterations) +
                              " correct horse battery staple");
  ASSERT_NE(status, 3) << "python3-argon2 is missing (apt-get install python3-argon2)";
  ASSERT_EQ(status, 0) << phc;
  ASSERT_EQ(phc.rfind("$argon2id$v=19$", 0), 0u) << phc;
  PasswordHasher hasher(p);
  VerifyResult right = hasher.verify("correct horse battery staple", phc);
  EXPECT_TRUE(right.matches);
  EXPECT_TRUE(right.upgraded_hash.empty()) << "same parameters: no re-hash expected";
  EXPECT_FALSE(hasher.verify("correct horse battery stapler", phc).matches);
  on_hashing_worker([&] {
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(hasher.verify("correct horse battery staple", phc).matches);
      EXPECT_FALSE(hasher.verify("correct horse battery stapler", phc).matches);
    }
  });
}

// Minor page faults of the calling thread so far.
long thread_minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// The reuse itself: after a worker's first hash, its hashes and verifications
// fault in no fresh pages (libsodium's own mapping costs m / 4 KiB faults per
// hash: 4,864 at the defaults). A stored hash with another m is verified in a
// mapping of its own size, which is then kept in turn.
TEST(WarmArgon2Memory, AHashingWorkerFaultsInNoFreshPagesAfterItsFirstHash) {
  if (!kWarmArgon2MemoryBuilt) GTEST_SKIP() << "sanitizer build: libsodium maps its memory";
  PasswordHasher hasher(Argon2Params{19456, 2});
  PasswordHasher small(Argon2Params{1024, 2});
  std::string stored = hasher.hash("correct horse battery staple");
  std::string stored_small = small.hash("correct horse battery staple");
  long fresh_pages_per_hash = 19456 / 4;
  on_hashing_worker([&] {
    hasher.hash("warm-up");
    long before = thread_minor_faults();
    hasher.hash("correct horse battery staple");
    EXPECT_TRUE(hasher.verify("correct horse battery staple", stored).matches);
    hasher.verify_dummy("an unknown e-mail's guess");
    long faults = thread_minor_faults() - before;
    EXPECT_LT(faults, fresh_pages_per_hash / 10) << faults << " minor faults for three calls";

    // Wrong guesses: a right one would upgrade the hash (interface.md 4.2),
    // which hashes again at m=19456.
    EXPECT_FALSE(hasher.verify("a wrong guess", stored_small).matches);
    before = thread_minor_faults();
    EXPECT_FALSE(hasher.verify("another wrong guess", stored_small).matches);
    faults = thread_minor_faults() - before;
    EXPECT_LT(faults, 1024 / 4 / 10) << faults << " minor faults for a second m=1024 verification";
  });
}

// interface.md 10.5: memory dearer than the server's own is never kept: a
// verification of a stored hash of a larger m maps its memory from the
// kernel and gives it back when it ends, while the worker keeps its own
// mapping, so an imported 256 MiB kind does not stay resident in every
// worker. (authd serve keeps up to its --argon2-memory-kib.)
TEST(WarmArgon2Memory, Interface_10_5_MemoryLargerThanTheOwnIsGivenBackAfterUse) {
  if (!kWarmArgon2MemoryBuilt) GTEST_SKIP() << "sanitizer build: libsodium maps its memory";
  PasswordHasher own(Argon2Params{1024, 2});
  PasswordHasher dearer(Argon2Params{8192, 1});
  std::string stored_dearer = dearer.hash("correct horse battery staple");
  keep_warm_argon2_memory_up_to(1024);
  std::uint64_t before = 0;
  on_hashing_worker([&] {
    own.hash("warm-up");
    EXPECT_EQ(warm_argon2_memory_kept_on_this_thread(), 1024u * 1024);
    before = argon2_memory_reused_total();
    EXPECT_FALSE(own.verify("a wrong guess", stored_dearer).matches);
    EXPECT_FALSE(own.verify("another wrong guess", stored_dearer).matches);
    EXPECT_EQ(warm_argon2_memory_kept_on_this_thread(), 1024u * 1024)
        << "the 8 MiB mapping was kept instead of the own";
    EXPECT_EQ(argon2_memory_reused_total(), before) << "the dearer verifications reused nothing";
    own.hash("the own mapping is still warm");
    EXPECT_EQ(argon2_memory_reused_total(), before + 1);
  });
  keep_warm_argon2_memory_up_to(kKeepAnyArgon2Memory);
}

// authd_argon2_memory_reused_total: a worker's first hash maps its memory,
// every later one is handed the kept mapping and counted.
TEST(WarmArgon2Memory, EveryHashAfterAWorkersFirstIsCountedAsReused) {
  if (!kWarmArgon2MemoryBuilt) GTEST_SKIP() << "sanitizer build: libsodium maps its memory";
  PasswordHasher hasher(Argon2Params{1024, 2});
  std::string stored = hasher.hash("correct horse battery staple");
  std::uint64_t before = argon2_memory_reused_total();
  on_hashing_worker([&] {
    hasher.hash("first: mapped");
    hasher.hash("second: reused");
    EXPECT_TRUE(hasher.verify("correct horse battery staple", stored).matches);
  });
  EXPECT_EQ(argon2_memory_reused_total() - before, 2u);
}

// Threads that did not ask for it (the CLI, the start-up dummy hash) keep
// libsodium's own mapping per hash, and are not counted.
TEST(WarmArgon2Memory, OtherThreadsMapTheirMemoryAfreshForEachHash) {
  PasswordHasher hasher(Argon2Params{1024, 2});
  std::uint64_t before = argon2_memory_reused_total();
  for (int i = 0; i < 3; ++i) hasher.hash("correct horse battery staple");
  EXPECT_EQ(argon2_memory_reused_total(), before);
}

// interface.md 4.1: within authd too, a hash made in a worker's reused
// memory verifies in memory libsodium mapped afresh, and the other way
// round.
TEST(WarmArgon2Memory, Interface_4_1_HashesVerifyAcrossFreshAndReusedMemory) {
  PasswordHasher hasher(Argon2Params{1024, 2});
  std::string fresh = hasher.hash("correct horse battery staple");
  std::string reused;
  on_hashing_worker([&] {
    hasher.hash("warm-up");
    reused = hasher.hash("correct horse battery staple");
    EXPECT_TRUE(hasher.verify("correct horse battery staple", fresh).matches);
    EXPECT_FALSE(hasher.verify("correct horse battery stapler", fresh).matches);
  });
  EXPECT_TRUE(hasher.verify("correct horse battery staple", reused).matches);
  EXPECT_FALSE(hasher.verify("correct horse battery stapler", reused).matches);
}

// A small cost, and the server's default (m = 19456 KiB, t = 2): the path
// the hashing pool takes in production.
INSTANTIATE_TEST_SUITE_P(Params, Argon2Interop,
                         ::testing::Values(Argon2Params{1024, 2}, Argon2Params{19456, 2}),
                         [](const ::testing::TestParamInfo<Argon2Params>& param_info) {
                           return "m" + std::to_string(param_info.param.memory_kib) + "_t" +
                                  std::to_string(param_info.param.iterations);
                         });

}  // namespace
}  // namespace authd
