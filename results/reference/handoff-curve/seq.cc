// Built against build/ (ea66362) with bench_conv's link line: c++ -O2 -std=c++17 -I. seq.cc -o seq <the libraries of build/tests/CMakeFiles/bench_conv.dir/link.txt>; run with GOMP_SPINCOUNT=10000.
// Hand-off into the native pool, in the matrix's sequence and in the network's.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <algorithm>
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"
using namespace lw;
using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void all_parked() { for (int q = 0; q < kThreadPoolCount; ++q) release_pool(q); }
int main(int argc, char** argv) {
  (void)default_registry();
  start_thread_sets();
  ScopedPin pin;
  const double item = argc > 1 ? atof(argv[1]) : 100;
  const ThreadPoolId from = argc > 2 && std::string(argv[2]) == "openmp" ? ThreadPoolId::kOpenmp : ThreadPoolId::kXnnpack;
  const char* names[] = {"matrix: parked+500us, from, release, native", "network: native, park, from x2, release, native",
                         "network, no native before: from x2, release, native", "native after native (base)"};
  for (int mode = 0; mode < 4; ++mode) {
    std::vector<double> t; uint64_t alone0 = caller_ran_alone_count();
    for (int r = 0; r < 200; ++r) {
      if (mode == 0) { all_parked(); std::this_thread::sleep_for(std::chrono::microseconds(500)); run_pool_job(from, item); release_pool(int(from)); }
      if (mode == 1) { run_pool_job(ThreadPoolId::kNative, item); release_pool(int(ThreadPoolId::kNative)); run_pool_job(from, 40); run_pool_job(from, 15); release_pool(int(from)); }
      if (mode == 2) { run_pool_job(from, 40); run_pool_job(from, 15); release_pool(int(from)); }
      if (mode == 3) { run_pool_job(ThreadPoolId::kNative, item); }
      auto t0 = Clock::now();
      run_pool_job(ThreadPoolId::kNative, item);
      t.push_back(ms_since(t0));
      if (mode >= 2) { busy_for_us(300); }  // the rest of an inference on other pools... (caller only)
    }
    std::sort(t.begin(), t.end());
    std::printf("%-55s item %4.0f us: median %.4f p25 %.4f p75 %.4f p90 %.4f ms, caller alone %lu of 200\n", names[mode], item, t[100], t[50], t[150], t[180],
                (unsigned long)(caller_ran_alone_count() - alone0));
  }
}
