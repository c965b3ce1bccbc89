// Built against build/ (ea66362) with bench_conv's link line: c++ -O2 -std=c++17 -I. seq3.cc -o seq3 <the libraries of build/tests/CMakeFiles/bench_conv.dir/link.txt>; run with GOMP_SPINCOUNT=10000.
// Hand-off from pool F into pool T: which part of the matrix's sequence hides the network's delay.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <algorithm>
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"
using namespace lw;
using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
static ThreadPoolId pool(const char* s) { return *parse_thread_pool(s); }
int main(int argc, char** argv) {
  (void)default_registry();
  start_thread_sets();
  ScopedPin pin;
  const double item = atof(argv[1]);
  const ThreadPoolId from = pool(argv[2]), to = pool(argv[3]);
  const int reps = 150;
  const double fl[] = {5, 15, 40, 100, 300};
  for (int settle = 0; settle < 2; ++settle)
  for (double flen : fl) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      if (settle) { for (int q = 0; q < kThreadPoolCount; ++q) release_pool(q); std::this_thread::sleep_for(std::chrono::microseconds(500)); }
      run_pool_job(from, flen);
      release_pool(int(from));
      auto t0 = Clock::now();
      run_pool_job(to, item);
      t.push_back(ms_since(t0));
      release_pool(int(to));
    }
    char nm[64]; std::snprintf(nm, sizeof nm, "%s from job %3.0f us", settle ? "settled," : "back to back,", flen);
    struct { const char* name; } v{nm};
    std::sort(t.begin(), t.end());
    std::printf("%s>%s item %4.0f  %-32s median %.4f p25 %.4f p75 %.4f ms\n", argv[2], argv[3], item, v.name, t[reps / 2], t[reps / 4], t[3 * reps / 4]);
  }
}
