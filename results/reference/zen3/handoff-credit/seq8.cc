// Built against build/ (44a6d7e) with bench_conv's link line (see ../../handoff-curve/seq6.cc); run with GOMP_SPINCOUNT=10000.
// Is XNNPACK's worker late after a short OpenMP step that follows an XNNPACK step (3-step)?
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <algorithm>
#include <cstdlib>
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
  const ThreadPoolId O = ThreadPoolId::kOpenmp, X = ThreadPoolId::kXnnpack;
  struct V { const char* name; double xnn_before_us; double omp_us; double gap_us; int xnn_jobs = 1; int omp_pre = 0; };
  std::vector<V> vs = {{"(settled) omp 30 -> xnn", 0, 30, 0},
                       {"xnn 100, omp 30 -> xnn", 100, 30, 0},
                       {"xnn 5x100, omp 30 -> xnn", 100, 30, 0, 5},
                       {"xnn 10x100, omp 30 -> xnn", 100, 30, 0, 10},
                       {"omp 5x100, xnn 5x100, omp 30 -> xnn", 100, 30, 0, 5, 5},
                       {"omp 5x100, xnn 1x100, omp 30 -> xnn", 100, 30, 0, 1, 5},
                       {"omp 5x100, omp 30 -> xnn", 0, 30, 0, 0, 5},
                       {"xnn 100 -> xnn (no omp)", 100, 0, 0}};
  std::vector<std::vector<double>> t(vs.size());
  for (int r = 0; r < reps; ++r)
    for (size_t k = 0; k < vs.size(); ++k) {
      const V& v = vs[k];
      release_all_pools();
      std::this_thread::sleep_for(std::chrono::microseconds(2000));  // every spinner gone
      for (int i = 0; i < v.omp_pre; ++i) run_pool_job(O, 100);
      if (v.omp_pre) release_pool(int(O));
      if (v.xnn_before_us > 0) { for (int i = 0; i < v.xnn_jobs; ++i) run_pool_job(X, v.xnn_before_us); if (v.omp_us > 0) release_pool(int(X)); }
      if (v.gap_us > 0) busy_for_us(v.gap_us);
      if (v.omp_us > 0) run_pool_job(O, v.omp_us);
      auto t0 = Clock::now();
      run_pool_job(X, item);
      t[k].push_back(ms_since(t0));
    }
  for (size_t k = 0; k < vs.size(); ++k) {
    auto& x = t[k]; std::sort(x.begin(), x.end());
    double mean = 0; for (double y : x) mean += y; mean /= x.size();
    printf("%-34s -> xnn %g us: median %.4f mean %.4f p25 %.4f p75 %.4f p90 %.4f ms\n", vs[k].name, item, x[x.size()/2], mean, x[x.size()/4], x[3*x.size()/4], x[9*x.size()/10]);
  }
}
