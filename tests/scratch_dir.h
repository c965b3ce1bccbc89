// A test process's own scratch folder, for tests that write files (cli_fixtures.h includes it).
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace lw::testing {

/// This test process's scratch folder, <temp>/<tag>_<pid> (created here): parallel ctest
/// runs of the same binary never share files.
inline std::filesystem::path scratch_dir(const std::string& tag) {
  std::filesystem::path d = std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace lw::testing
