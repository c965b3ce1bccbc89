// Built against build/ (44a6d7e) with bench_conv's link line (see ../../handoff-curve/seq6.cc); run with GOMP_SPINCOUNT=10000.
// The credit state: does an OpenMP -> XNNPACK hand-off pay libgomp's spin after an earlier
// XNNPACK job that ran while libgomp's worker spun? Middle OpenMP job length varied.
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
  const int reps = 100;
  const ThreadPoolId O = ThreadPoolId::kOpenmp, X = ThreadPoolId::kXnnpack, N = ThreadPoolId::kNative, C = ThreadPoolId::kCaller;
  struct V { std::string name; ThreadPoolId a, b; double mid_us, item_us; bool credit; };
  std::vector<V> vs;
  const char* nm[] = {"caller", "native", "openmp", "xnnpack"};
  (void)nm;
  for (double item : {20.0, 120.0})
    for (auto ab : {std::pair{O, X}, std::pair{X, O}, std::pair{O, N}, std::pair{N, O}, std::pair{X, N}, std::pair{N, X}})
      for (bool credit : {false, true}) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "%s->%s item %g %s", to_string(ab.first), to_string(ab.second), item, credit ? "credit" : "pair");
        vs.push_back({buf, ab.first, ab.second, item, item, credit});
      }
  for (double mid : {100.0, 300.0, 1000.0}) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "openmp->xnnpack item 20 credit, openmp job %g", mid);
    vs.push_back({buf, O, X, mid, 20, true});
  }
  std::vector<std::vector<double>> t(vs.size());
  for (int r = 0; r < reps; ++r)
    for (size_t k = 0; k < vs.size(); ++k) {
      const V& v = vs[k];
      release_all_pools();
      std::this_thread::sleep_for(std::chrono::microseconds(1000));
      if (v.credit) { run_pool_job(v.a, v.item_us); release_pool(int(v.a)); run_pool_job(v.b, v.item_us); release_pool(int(v.b)); }
      run_pool_job(v.a, v.mid_us);
      release_pool(int(v.a));
      auto t0 = Clock::now();
      run_pool_job(v.b, v.item_us);
      t[k].push_back(ms_since(t0));
    }
  for (size_t k = 0; k < vs.size(); ++k) {
    auto& x = t[k]; std::sort(x.begin(), x.end());
    double mean = 0; for (double y : x) mean += y; mean /= x.size();
    printf("%-52s median %.4f mean %.4f p25 %.4f p75 %.4f ms\n", vs[k].name.c_str(), x[x.size()/2], mean, x[x.size()/4], x[3*x.size()/4]);
  }
}
