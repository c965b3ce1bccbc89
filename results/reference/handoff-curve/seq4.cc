// Built against build/ (ea66362) with bench_conv's link line: c++ -O2 -std=c++17 -I. seq4.cc -o seq4 <the libraries of build/tests/CMakeFiles/bench_conv.dir/link.txt>; run with GOMP_SPINCOUNT=10000.
// Hand-off matrix protocols: settled (the profiler's) vs back to back (as in a network), median vs trimmed mean.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <algorithm>
#include <numeric>
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"
using namespace lw;
using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double tmean(std::vector<double> v) { std::sort(v.begin(), v.end()); size_t k = v.size() * 95 / 100; return std::accumulate(v.begin(), v.begin() + k, 0.0) / k; }
int main(int argc, char** argv) {
  (void)default_registry();
  start_thread_sets();
  ScopedPin pin;
  const double item = atof(argv[1]);
  const int rounds = 61;
  const char* names[] = {"caller", "native", "xnnpack", "openmp"};
  for (int proto = 0; proto < 2; ++proto) {
    std::vector<std::vector<double>> t(16);
    for (int r = 0; r < rounds; ++r)
      for (int f = 0; f < 4; ++f)
        for (int to = 0; to < 4; ++to) {
          ThreadPoolId F = ThreadPoolId(f), T = ThreadPoolId(to);
          if (proto == 0) {
            for (int q = 0; q < kThreadPoolCount; ++q) release_pool(q);
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            if (f == 0 && to != 0) { run_pool_job(T, item); release_pool(to); }
            run_pool_job(F, item);
          } else {
            if (f == 0 && to != 0) { run_pool_job(T, item); release_pool(to); }
            run_pool_job(F, item); run_pool_job(F, 15);
          }
          if (f != to && f != 0 && to != 0) release_pool(f);
          auto t0 = Clock::now();
          run_pool_job(T, item);
          t[f * 4 + to].push_back(ms_since(t0));
          if (proto == 1 && to != 0) release_pool(to);
        }
    for (int stat = 0; stat < 2; ++stat) {
      std::printf("%s, %s, item %.0f us\n  from\\to", proto ? "back to back (from x2)" : "settled (profiler)", stat ? "trimmed mean" : "median", item);
      for (int to = 0; to < 4; ++to) std::printf(" %8s", names[to]);
      for (int f = 0; f < 4; ++f) {
        std::printf("\n  %-8s", names[f]);
        for (int to = 0; to < 4; ++to) {
          auto s = stat ? tmean : med;
          std::printf(" %8.4f", f == to ? 0.0 : std::max(0.0, s(t[f * 4 + to]) - s(t[to * 4 + to])));
        }
      }
      std::printf("\n");
    }
  }
}
