// A test process's own scratch folder, for tests that write files (cli_fixtures.h includes it).
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>

namespace lw::testing {

namespace detail {
// Removes every scratch folder when the test process exits normally, so repeated test runs do not
// fill <temp>. A crashed or killed process leaves its files for a look; so does LW_KEEP_SCRATCH=1.
class ScratchRegistry {
 public:
  void add(const std::filesystem::path& d) {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.insert(d);
  }
  ~ScratchRegistry() {
    const char* keep = std::getenv("LW_KEEP_SCRATCH");
    if (keep != nullptr && std::string(keep) == "1") return;
    std::error_code ec;  // best effort: a folder a test already removed is fine
    for (const auto& d : dirs_) std::filesystem::remove_all(d, ec);
  }

 private:
  std::mutex mu_;
  std::set<std::filesystem::path> dirs_;
};

inline ScratchRegistry& scratch_registry() {
  static ScratchRegistry r;
  return r;
}
}  // namespace detail

/// This test process's scratch folder, <temp>/<tag>_<pid> (created here, removed at exit):
/// parallel ctest runs of the same binary never share files.
inline std::filesystem::path scratch_dir(const std::string& tag) {
  std::filesystem::path d = std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  detail::scratch_registry().add(d);
  return d;
}

}  // namespace lw::testing
