// An online, consistent copy of the SQLite database (SQLite's backup API),
// for `authd backup`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace authd::sqlite {

struct BackupProgress {
  int pages_copied = 0;
  int pages_total = 0;
};

// Copies the database at `source` to `destination` while other processes
// (a running `authd serve`) keep reading and writing it:
// - the copy is one snapshot: it is made inside a single read transaction
//   of the source, which in WAL mode never blocks writers;
// - pages are copied in chunks of `pages_per_step`, so that the copy does
//   its I/O in small steps and reports progress;
// - it is written to a temporary file (mode 0600) beside `destination`,
//   synced, checked (PRAGMA quick_check) and renamed over `destination`, so
//   that `destination` is never a partial copy.
// Throws StoreError (with SQLite's message) when anything fails; the
// temporary file is removed then.
void backup_database(const std::string& source, const std::string& destination,
                     int pages_per_step = 256,
                     const std::function<void(const BackupProgress&)>& progress = {});

}  // namespace authd::sqlite
