// Built against build/ (44a6d7e) with bench_conv's link line (see ../../handoff-curve/seq6.cc); run as GOMP_SPINCOUNT=10000 ./seq10 40 (2026-11-27 ~12:31 UTC).
// Grid: OpenMP job (from) of L us, then XNNPACK job (to) of M us, after an alternation
// openmp(400) -> xnnpack(C us) that builds the credit. And the same for openmp -> native.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <algorithm>
#include <cstdlib>
#include <string>
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"
using namespace lw;
using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
int main(int argc, char** argv) {
  (void)default_registry();
  start_thread_sets();
  ScopedPin pin;
  const int reps = argc > 1 ? atoi(argv[1]) : 60;
  const ThreadPoolId O = ThreadPoolId::kOpenmp, X = ThreadPoolId::kXnnpack;
  struct V { double credit_us, from_us, to_us; };
  std::vector<V> vs;
  for (double c : {0.0, 50.0, 400.0})
    for (double L : {20.0, 50.0, 120.0, 400.0})
      for (double M : {20.0, 120.0, 400.0}) vs.push_back({c, L, M});
  std::vector<std::vector<double>> t(vs.size()), base(vs.size());
  for (int r = 0; r < reps; ++r)
    for (size_t k = 0; k < vs.size(); ++k)
      for (int b = 0; b < 2; ++b) {
        const V& v = vs[k];
        release_all_pools();
        std::this_thread::sleep_for(std::chrono::microseconds(1000));
        if (v.credit_us > 0) { run_pool_job(O, 400); run_pool_job(X, v.credit_us); release_pool(int(X)); }
        if (b == 0) { run_pool_job(O, v.from_us); }
        else { run_pool_job(X, v.from_us); }  // base: `to` after itself
        auto t0 = Clock::now();
        run_pool_job(X, v.to_us);
        (b == 0 ? t[k] : base[k]).push_back(ms_since(t0));
      }
  auto tmean = [](std::vector<double> x) { std::sort(x.begin(), x.end()); size_t c = x.size() / 10; double s = 0; for (size_t i = c; i < x.size() - c; ++i) s += x[i]; return s / (x.size() - 2 * c); };
  printf("credit(xnn us after omp 400)  from(omp us)  to(xnn us):  hand-off ms (trimmed mean of after-openmp less after-xnnpack), median after-openmp\n");
  for (size_t k = 0; k < vs.size(); ++k) {
    auto x = t[k]; std::sort(x.begin(), x.end());
    printf("credit %4g  from %4g  to %4g:  %.4f   median %.4f\n", vs[k].credit_us, vs[k].from_us, vs[k].to_us, tmean(t[k]) - tmean(base[k]), x[x.size() / 2]);
  }
}
