// layerwise: finds the best per-layer deployment of a CNN on this CPU.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "explorer/cli/cli.h"
#include "libs/ops/thread_pool.h"

namespace {

// LibTorch's and oneDNN's OpenMP worker spins GOMP_SPINCOUNT pauses after every parallel
// region (libgomp default 300000, ~10+ ms here) pinned to cpu1, where it keeps the next
// 2-thread step of another pool (native, XNNPACK) waiting: 100 ms instead of 1.4 ms measured
// for a small torch-nchw deployment. Unlike those pools it cannot be parked, and libgomp
// reads the variable only when it loads, so every command re-executes itself with a short
// spin unless the caller chose one: the profiler then times 2-thread oneDNN steps with the
// same worker behaviour as the executor runs them (the LUT's protocol records the value).
constexpr const char* kGompSpinCount = "10000";

void reexec_with_short_omp_spin() {
  if (std::getenv("GOMP_SPINCOUNT")) return;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(f, a, '\0');) args.push_back(a);
  if (args.empty()) return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("GOMP_SPINCOUNT", kGompSpinCount, 1);
  execv("/proc/self/exe", argv.data());  // returns only on failure: go on with the default spin
}

// LAYERWISE_NATIVE_POOL=native|openmp: where native kernels' 2-thread steps run (libs/ops/
// thread_pool.h set_native_kernels_pool; libgomp's team unless set). For A/B runs against
// our own worker. The LUT's protocol records the setting: the pipeline's LUT cache profiles
// anew under the other, and bench says when a LUT it reuses was timed on the other pool.
bool apply_native_pool_choice() {
  const char* v = std::getenv("LAYERWISE_NATIVE_POOL");
  if (!v) return true;
  const auto p = lw::parse_thread_pool(v);
  if (p != lw::ThreadPoolId::kNative && p != lw::ThreadPoolId::kOpenmp) {
    std::fprintf(stderr, "layerwise: LAYERWISE_NATIVE_POOL='%s' is not a pool native kernels can run on (native, openmp)\n", v);
    return false;
  }
  lw::set_native_kernels_pool(*p);
  return true;
}

void usage() {
  std::printf("usage: layerwise <command> [options]   (layerwise <command> --help for details)\n\ncommands:\n");
  for (const auto& [name, c] : lw::cli::commands()) std::printf("  %-10s %s\n", name.c_str(), c.summary.c_str());
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    usage();
    return argc < 2 ? 2 : 0;
  }
  reexec_with_short_omp_spin();
  if (!apply_native_pool_choice()) return 2;
  auto it = lw::cli::commands().find(argv[1]);
  if (it == lw::cli::commands().end()) {
    std::fprintf(stderr, "layerwise: unknown command '%s'\n", argv[1]);
    usage();
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::printf("%s", it->second.help.c_str());
      return 0;
    }
  try {
    return it->second.run(args);
  } catch (const lw::cli::UsageError& e) {
    std::fprintf(stderr, "layerwise %s: %s\n", argv[1], e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layerwise %s: internal error: %s\n", argv[1], e.what());
    return 1;
  }
}
