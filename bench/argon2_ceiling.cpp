// The argon2id ceiling: hashes per second at authd's parameters on all
// cores, with the library called directly (no server), and the cost of one
// hash split into user time, system time and minor page faults.
//
//   argon2_ceiling [--memory-kib 19456] [--iterations 2] [--threads N] [--seconds 5]
//                  [--impl sodium|argon2|argon2-warm]
//   argon2_ceiling --phc PASSWORD   (prints one libsodium PHC string, for seeding)
//
// sodium:      libsodium crypto_pwhash_argon2id_str (what authd used before):
//              libsodium mmaps and unmaps its memory for every hash.
// argon2:      libargon2 (the reference implementation) with glibc defaults:
//              the memory comes from malloc, which also mmaps it every time.
// argon2-warm: libargon2 after a malloc tuning that authd used early on
//              (tune_allocator_for_argon2, since removed): malloc keeps the
//              freed block in the worker's arena, so the pages stay mapped.
// sodium-warm: libsodium with its mmap/munmap calls interposed so that each
//              thread reuses one mapping, wiped after every hash: the same
//              technique as authd's hashing workers (crypto/warm_argon2_memory.cpp),
//              measured here without a server.
// Prints one line of key=value pairs.
#include <argon2.h>
#include <malloc.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

// The sodium-warm experiment: while `warm_active` is set on a thread, the
// argon2 mapping libsodium asks for is this thread's kept mapping.
thread_local bool warm_active = false;
thread_local void* warm_region = nullptr;
thread_local std::size_t warm_size = 0;

extern "C" void* mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t off) {
  if (warm_active && addr == nullptr && fd == -1 && (flags & MAP_ANONYMOUS)) {
    if (warm_region == nullptr || warm_size != len) {
      warm_region = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, len, prot, flags, fd, off));
      warm_size = len;
    }
    return warm_region;
  }
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, len, prot, flags, fd, off));
}

extern "C" int munmap(void* addr, std::size_t len) {
  if (warm_active && addr == warm_region) {
    sodium_memzero(addr, len);  // as authd does
    return 0;
  }
  return static_cast<int>(syscall(SYS_munmap, addr, len));
}

namespace {

std::size_t memory_kib = 19456;
unsigned iterations = 2;
std::string impl = "argon2-warm";

void hash_once(const char* password) {
  if (impl == "sodium" || impl == "sodium-warm") {
    warm_active = impl == "sodium-warm";
    char out[crypto_pwhash_argon2id_STRBYTES];
    if (crypto_pwhash_argon2id_str(out, password, std::strlen(password), iterations,
                                   memory_kib * 1024) != 0)
      std::abort();
    warm_active = false;
  } else {
    unsigned char salt[16];
    randombytes_buf(salt, sizeof salt);
    char out[128];
    if (argon2id_hash_encoded(iterations, static_cast<uint32_t>(memory_kib), 1, password,
                              std::strlen(password), salt, sizeof salt, 32, out,
                              sizeof out) != ARGON2_OK)
      std::abort();
  }
}

double seconds(const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = std::thread::hardware_concurrency();
  double duration = 5;
  for (int i = 1; i + 1 < argc && std::string(argv[1]) != "--phc"; i += 2) {
    std::string flag = argv[i];
    if (flag == "--memory-kib")
      memory_kib = std::stoul(argv[i + 1]);
    else if (flag == "--iterations")
      iterations = static_cast<unsigned>(std::stoul(argv[i + 1]));
    else if (flag == "--threads")
      threads = static_cast<unsigned>(std::stoul(argv[i + 1]));
    else if (flag == "--seconds")
      duration = std::stod(argv[i + 1]);
    else if (flag == "--impl")
      impl = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (sodium_init() < 0) return 1;
  if (argc == 3 && std::string(argv[1]) == "--phc") {
    char out[crypto_pwhash_argon2id_STRBYTES];
    if (crypto_pwhash_argon2id_str(out, argv[2], std::strlen(argv[2]), iterations,
                                   memory_kib * 1024) != 0)
      return 1;
    std::puts(out);
    return 0;
  }
  if (impl == "argon2-warm") {
    // The same settings as authd's PasswordHasher (see password_hasher.cpp).
    int block = static_cast<int>(memory_kib * 1024 + (1 << 20));
    mallopt(M_MMAP_THRESHOLD, block);
    mallopt(M_TRIM_THRESHOLD, 2 * block);
  }

  // 1. Cost of one hash on one thread: user and system time, minor faults.
  const int samples = 20;
  hash_once("warm-up");
  rusage before{}, after{};
  getrusage(RUSAGE_THREAD, &before);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < samples; ++i) hash_once("correct horse battery staple");
  auto t1 = std::chrono::steady_clock::now();
  getrusage(RUSAGE_THREAD, &after);
  double wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count() / samples;
  double user_ms = (seconds(after.ru_utime) - seconds(before.ru_utime)) * 1000 / samples;
  double sys_ms = (seconds(after.ru_stime) - seconds(before.ru_stime)) * 1000 / samples;
  double faults = static_cast<double>(after.ru_minflt - before.ru_minflt) / samples;

  // 2. Throughput on all cores.
  std::atomic<bool> stop{false};
  std::atomic<long> count{0};
  std::vector<std::thread> workers;
  auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < threads; ++i)
    workers.emplace_back([&] {
      while (!stop.load()) {
        hash_once("correct horse battery staple");
        count.fetch_add(1);
      }
    });
  std::this_thread::sleep_for(std::chrono::duration<double>(duration));
  stop = true;
  for (auto& w : workers) w.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  std::printf(
      "impl=%s threads=%u hashes_per_s=%.1f wall_ms=%.2f user_ms=%.2f sys_ms=%.2f "
      "minflt=%.0f maxrss_mib=%.1f\n",
      impl.c_str(), threads, count.load() / elapsed, wall_ms, user_ms, sys_ms, faults,
      self.ru_maxrss / 1024.0);
  return 0;
}
