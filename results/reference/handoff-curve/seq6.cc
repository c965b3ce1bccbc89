// Built against build/ (67ef732) with bench_conv's link line: c++ -O2 -std=c++17 -I. seq6.cc -o seq6 <the libraries of build/tests/CMakeFiles/bench_conv.dir/link.txt>; run with GOMP_SPINCOUNT=10000.
// Does a libgomp worker still spinning from an OpenMP step before XNNPACK's steps hold our
// worker off cpu1? Sequence per try: [pre] on pool A, XNNPACK jobs, release XNNPACK, then the
// timed native job; A = OpenMP (as before SqueezeNet's late native steps), native (parked after
// it, as the executor does) or nothing; a gap on the caller between tries lets every spinner end.
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
int main(int argc, char** argv) {
  (void)default_registry();
  start_thread_sets();
  ScopedPin pin;
  const double item = argc > 1 ? atof(argv[1]) : 100;
  const int reps = 200;
  struct V { const char* name; ThreadPoolId pre; double pre_us; double xnn_us; double native_us = 0; };
  const ThreadPoolId O = ThreadPoolId::kOpenmp, N = ThreadPoolId::kNative, C = ThreadPoolId::kCaller;
  for (V v : {V{"openmp 100us, native 100us, xnnpack 2x20us", O, 100, 20, 100}, V{"openmp 100us, xnnpack 2x20us", O, 100, 20},
              V{"openmp 100us, native 300us, xnnpack 2x20us", O, 100, 20, 300}, V{"native 100us, xnnpack 2x20us", N, 100, 20}}) {
    std::vector<double> t;
    const uint64_t alone0 = caller_ran_alone_count();
    for (int r = 0; r < reps; ++r) {
      std::this_thread::sleep_for(std::chrono::microseconds(1000));  // every spinner gone
      if (v.pre != C) { run_pool_job(v.pre, v.pre_us); release_pool(int(v.pre)); }
      if (v.native_us > 0) { run_pool_job(N, v.native_us); release_pool(int(N)); }
      run_pool_job(ThreadPoolId::kXnnpack, v.xnn_us);
      run_pool_job(ThreadPoolId::kXnnpack, v.xnn_us);
      release_pool(int(ThreadPoolId::kXnnpack));
      auto t0 = Clock::now();
      run_pool_job(N, item);
      t.push_back(ms_since(t0));
      release_pool(int(N));
    }
    std::sort(t.begin(), t.end());
    double mean = 0; for (double x : t) mean += x / reps;
    std::printf("%-44s -> native %3.0f us: median %.4f mean %.4f p75 %.4f p90 %.4f ms; caller alone %3lu of %d\n", v.name, item,
                t[reps / 2], mean, t[3 * reps / 4], t[9 * reps / 10], (unsigned long)(caller_ran_alone_count() - alone0), reps);
  }
}
