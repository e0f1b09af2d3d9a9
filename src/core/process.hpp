// Process-wide protection of the secrets authd holds in memory: passwords
// being hashed, tokens, the SMTP and database passwords (also in the
// environment, /proc/PID/environ).
#pragma once

#include <sys/prctl.h>
#include <sys/resource.h>

namespace authd {

// No core file, and no access to this process's memory by other processes
// of the same user: a process that is not dumpable cannot be traced
// (ptrace), and its /proc/PID/mem, environ and the like belong to root. The
// core limit too, so that it holds where the kernel's core_pattern or
// suid_dumpable would dump anyway. Called first thing in main(), before the
// flags and the environment are read. False when the kernel refused.
inline bool forbid_core_dumps() {
  rlimit none{0, 0};
  bool limited = ::setrlimit(RLIMIT_CORE, &none) == 0;
  bool undumpable = ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
  return limited && undumpable;
}

}  // namespace authd
