// Where the tests find the repository's files and the authd binary: from
// the test executable's own directory, through paths CMake computed
// relative to it (tests/CMakeLists.txt), so that no compiled test names the
// clone's directory and ccache can share their objects between clones
// (cmake/ccache.cmake).
#pragma once

#include <filesystem>
#include <string>

#if !defined(AUTHD_SOURCE_DIR_FROM_TESTS) || !defined(AUTHD_BINARY_FROM_TESTS)
#error "tests/CMakeLists.txt defines AUTHD_SOURCE_DIR_FROM_TESTS and AUTHD_BINARY_FROM_TESTS"
#endif

namespace authd::test {

inline std::filesystem::path test_binary_directory() {
  return std::filesystem::canonical("/proc/self/exe").parent_path();
}

// A file of the repository, by its path from the root: "docs/reference/openapi.yaml".
inline std::string source_path(const std::string& from_root) {
  return (test_binary_directory() / AUTHD_SOURCE_DIR_FROM_TESTS / from_root)
      .lexically_normal()
      .string();
}

// The authd executable built beside the tests.
inline std::string authd_binary() {
  return (test_binary_directory() / AUTHD_BINARY_FROM_TESTS).lexically_normal().string();
}

}  // namespace authd::test
