// Running the `layerwise` binary as a user does, for the tests of the CLI's contract (exit
// codes, one-line errors on stderr, the files a verb writes). LAYERWISE_BIN, the built
// binary, is set per test target in tests/CMakeLists.txt.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/scratch_dir.h"

#ifndef LAYERWISE_BIN
#error "tests/cli_fixtures.h needs LAYERWISE_BIN (target_compile_definitions in tests/CMakeLists.txt)"
#endif

namespace lw::testing {

struct CliResult {
  int code;  // exit status; -1 when a signal ended the process
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// `env layerwise args` ("VAR=x" words in `env`); stdout and stderr pass through files in `dir`.
inline CliResult run_layerwise(const std::filesystem::path& dir, const std::string& args, const std::string& env = "") {
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const int raw = std::system((env + " " + LAYERWISE_BIN + " " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

inline int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

}  // namespace lw::testing
