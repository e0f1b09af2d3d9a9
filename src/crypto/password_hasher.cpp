#include "crypto/password_hasher.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include <sodium.h>

#include "crypto/hash_kind.hpp"
#include "crypto/random.hpp"

// Warm argon2 memory.
//
// libsodium maps the argon2 working memory (19 MiB by default) with
// mmap(MAP_POPULATE) at the start of every hash and unmaps it at the end. The
// kernel then has to fault in and zero 4,864 fresh pages per hash, which on a
// virtual machine costs about as much system time as the hash's own
// computation (docs/performance.md). libsodium offers no allocator hook, and
// interface.md 4.1 keeps libsodium, so authd interposes the two calls, for
// the hashing pool's threads only and only while they are inside libsodium's
// argon2 (`Argon2Call` below): the anonymous private mapping libsodium asks
// for (exactly the call's m KiB, with MAP_POPULATE, as libsodium maps it; any
// other mapping, such as an allocator growing its heap for libsodium's small
// malloc in the same call, goes to the kernel) is the thread's kept mapping,
// and its munmap wipes the memory
// (libsodium relies on munmap for that) instead of returning it. Every other
// mmap and munmap of the process, and these two calls on any other thread,
// go straight to the kernel. argon2 overwrites every block before reading it,
// so reusing memory changes no result (tests/unit/performance_paths_test.cpp
// checks the hashes against the reference implementation).
//
// Not under the sanitizers: their runtimes intercept mmap themselves.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AUTHD_WARM_ARGON2 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define AUTHD_WARM_ARGON2 0
#endif
#endif
#ifndef AUTHD_WARM_ARGON2
#define AUTHD_WARM_ARGON2 1
#endif

namespace authd {
namespace {

// Trivially constructed and destroyed, so that the interposed mmap may read
// it from any thread at any time (even before or after C++ thread-local
// constructors run).
struct WarmMemory {
  bool enabled = false;          // this thread reuses its mapping
  std::size_t expected_len = 0;  // inside a libsodium argon2 call: its m KiB in bytes, else 0
  void* base = nullptr;
  std::size_t size = 0;
};
constinit thread_local WarmMemory t_warm{};

[[maybe_unused]] void* kernel_mmap(void* addr, std::size_t len, int prot, int flags, int fd,
                                   off_t offset) {
  return reinterpret_cast<void*>(::syscall(SYS_mmap, addr, len, prot, flags, fd, offset));
}

[[maybe_unused]] int kernel_munmap(void* addr, std::size_t len) {
  return static_cast<int>(::syscall(SYS_munmap, addr, len));
}

// Unmaps the thread's kept mapping when the thread ends.
struct WarmMemoryRelease {
  ~WarmMemoryRelease() {
    if (t_warm.base != nullptr) kernel_munmap(t_warm.base, t_warm.size);
    t_warm = WarmMemory{};
  }
};

// Marks the span of one libsodium argon2 call on this thread, with the size
// of the memory region it will map (0: unknown, nothing is reused).
class Argon2Call {
 public:
  explicit Argon2Call(std::size_t memory_kib) {
    t_warm.expected_len = t_warm.enabled ? memory_kib * 1024 : 0;
  }
  ~Argon2Call() { t_warm.expected_len = 0; }
  Argon2Call(const Argon2Call&) = delete;
  Argon2Call& operator=(const Argon2Call&) = delete;
};

}  // namespace
}  // namespace authd

#if AUTHD_WARM_ARGON2
extern "C" void* mmap(void* addr, std::size_t len, int prot, int flags, int fd,
                      off_t offset) noexcept {
  authd::WarmMemory& warm = authd::t_warm;
  bool argon2_memory = warm.expected_len != 0 && len == warm.expected_len && addr == nullptr &&
                       fd == -1 && (flags & MAP_ANONYMOUS) != 0 && (flags & MAP_PRIVATE) != 0 &&
                       (flags & MAP_POPULATE) != 0;
  if (!argon2_memory) return authd::kernel_mmap(addr, len, prot, flags, fd, offset);
  if (warm.base != nullptr && warm.size != len) {  // other parameters: remap
    authd::kernel_munmap(warm.base, warm.size);
    warm.base = nullptr;
  }
  if (warm.base == nullptr) {
    void* base = authd::kernel_mmap(nullptr, len, prot, flags, fd, offset);
    if (base == MAP_FAILED) return base;
    warm.base = base;
    warm.size = len;
  }
  return warm.base;
}

extern "C" int munmap(void* addr, std::size_t len) noexcept {
  authd::WarmMemory& warm = authd::t_warm;
  if (warm.expected_len != 0 && addr == warm.base && len == warm.size) {
    sodium_memzero(addr, len);  // what returning the pages to the kernel did
    return 0;
  }
  return authd::kernel_munmap(addr, len);
}
#endif

namespace authd {

void reuse_argon2_memory_on_this_thread() {
  if (!AUTHD_WARM_ARGON2 || t_warm.enabled) return;
  thread_local WarmMemoryRelease release;  // constructed once per thread
  (void)release;
  t_warm.enabled = true;
}

bool argon2_memory_reuse_built() { return AUTHD_WARM_ARGON2 != 0; }

namespace {

// libsodium wants NUL-terminated PHC strings; they are short and not secret.
std::string terminated(std::string_view phc) { return std::string(phc); }

// The m (KiB) of a PHC string's parameters ("$argon2id$v=19$m=19456,t=2,p=1$
// ..."), or 0 when there is none to read: then nothing is reused.
std::size_t phc_memory_kib(std::string_view phc) {
  std::size_t at = phc.find("$m=");
  if (at == std::string_view::npos) return 0;
  std::size_t kib = 0;
  for (std::size_t i = at + 3; i < phc.size() && phc[i] >= '0' && phc[i] <= '9'; ++i) {
    kib = kib * 10 + static_cast<std::size_t>(phc[i] - '0');
    if (kib > (std::size_t{1} << 32)) return 0;  // beyond any argon2 memory
  }
  return kib;
}

}  // namespace

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  if (params_.iterations < crypto_pwhash_argon2id_OPSLIMIT_MIN ||
      params_.memory_kib * 1024 < crypto_pwhash_argon2id_MEMLIMIT_MIN) {
    throw std::invalid_argument("argon2id parameters below libsodium's minimum");
  }
  dummy_hash_ = hash(new_secret_token("dummy_"));
  own_kind_ = password_hash_kind(dummy_hash_).value_or("");
}

std::optional<std::string> PasswordHasher::hash_of_kind(std::string_view kind,
                                                        std::string_view password) const {
  std::optional<Argon2Kind> parsed = parse_argon2_kind(kind);
  if (!parsed || parsed->version != 19 || parsed->lanes != 1) return std::nullopt;
  bool id = parsed->algorithm == "argon2id";
  if (!id && parsed->algorithm != "argon2i") return std::nullopt;
  unsigned long long ops = parsed->iterations;
  std::size_t memory = static_cast<std::size_t>(parsed->memory_kib) * 1024;
  // libsodium's ranges: the same for both but the least number of passes.
  static_assert(crypto_pwhash_argon2i_OPSLIMIT_MAX == crypto_pwhash_argon2id_OPSLIMIT_MAX &&
                crypto_pwhash_argon2i_MEMLIMIT_MIN == crypto_pwhash_argon2id_MEMLIMIT_MIN &&
                crypto_pwhash_argon2i_MEMLIMIT_MAX == crypto_pwhash_argon2id_MEMLIMIT_MAX);
  unsigned long long least_ops =
      id ? crypto_pwhash_argon2id_OPSLIMIT_MIN : crypto_pwhash_argon2i_OPSLIMIT_MIN;
  if (ops < least_ops || ops > crypto_pwhash_argon2id_OPSLIMIT_MAX ||
      memory < crypto_pwhash_argon2id_MEMLIMIT_MIN || memory > crypto_pwhash_argon2id_MEMLIMIT_MAX)
    return std::nullopt;
  char out[crypto_pwhash_argon2id_STRBYTES];
  static_assert(crypto_pwhash_argon2id_STRBYTES >= crypto_pwhash_argon2i_STRBYTES);
  Argon2Call call(parsed->memory_kib);
  int failed = id ? crypto_pwhash_argon2id_str(out, password.data(), password.size(), ops, memory)
                  : crypto_pwhash_argon2i_str(out, password.data(), password.size(), ops, memory);
  if (failed != 0) return std::nullopt;
  return std::string(out);
}

std::string PasswordHasher::hash(std::string_view password) const {
  char out[crypto_pwhash_argon2id_STRBYTES];
  Argon2Call call(params_.memory_kib);
  if (crypto_pwhash_argon2id_str(out, password.data(), password.size(), params_.iterations,
                                 params_.memory_kib * 1024) != 0) {
    throw std::runtime_error("argon2id hashing failed (out of memory?)");
  }
  return std::string(out);
}

VerifyResult PasswordHasher::verify(std::string_view password, std::string_view phc) const {
  VerifyResult result;
  std::string stored = terminated(phc);
  // crypto_pwhash_str_verify dispatches on the PHC prefix (argon2id or argon2i).
  Argon2Call call(phc_memory_kib(stored));
  result.matches = crypto_pwhash_str_verify(stored.c_str(), password.data(), password.size()) == 0;
  if (result.matches && needs_rehash(stored)) result.upgraded_hash = hash(password);
  return result;
}

void PasswordHasher::verify_dummy(std::string_view password) const {
  // The outcome is irrelevant (it never matches); only the cost matters.
  Argon2Call call(params_.memory_kib);
  [[maybe_unused]] int ignored =
      crypto_pwhash_str_verify(dummy_hash_.c_str(), password.data(), password.size());
}

bool PasswordHasher::needs_rehash(std::string_view phc) const {
  std::string stored = terminated(phc);
  // Non-zero for other parameters, and -1 for another algorithm (argon2i).
  return crypto_pwhash_argon2id_str_needs_rehash(stored.c_str(), params_.iterations,
                                                 params_.memory_kib * 1024) != 0;
}

}  // namespace authd
