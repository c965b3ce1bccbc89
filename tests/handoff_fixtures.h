// Hand-offs and pools of hand-made LUTs, and the hand-offs of an assignment computed apart from
// env/cost.cc (test_handoff, test_shared_write).
#pragma once
#include <vector>

#include "env/cost.h"
#include "libs/ops/thread_pool.h"
#include "tests/agent_fixtures.h"

namespace lw::testing {

inline int pool_index(const char* name) { return int(*parse_thread_pool(name)); }

// One matrix (measured with 20 us items), or the matrix of item `item_us` (added in order).
inline void set_handoff(Lut& lut, const char* from, const char* to, double ms, double item_us = 20) {
  auto& all = lut.runtime.handoffs;
  if (all.empty() || all.back().item_us < item_us) all.push_back({item_us, std::vector<double>(kThreadPoolCount * kThreadPoolCount, 0.0)});
  all.back().ms[pool_index(from) * kThreadPoolCount + pool_index(to)] = ms;
}

inline int pool_of(const Impl& m) {
  if (m.threads <= 1) return pool_index("caller");
  // (XNNPACK's 2-thread steps on libgomp's team: libs/xnnpack/omp_pthreadpool.cc)
  if (m.library == "onednn" || m.library == "torch" || m.library == "xnnpack") return pool_index("openmp");
  return int(native_kernels_pool());  // native kernels, OpenBLAS
}

// The hand-offs of an assignment as a state machine over the steps in layer order, written
// apart from env/cost.cc: the current pool starts and ends at the caller; a fused pseudo-impl
// leaves it as it is; a hand-off into layer i's pool is read at the fastest ok impl of layer i
// on that pool (the output copy's at the last layer's fastest on the caller).
inline double lut_handoffs(const Lut& lut, const std::vector<int>& a) {
  if (lut.runtime.handoffs.empty()) return 0.0;
  auto step_ms = [&](size_t i, int pool) {
    double least = 0;
    bool any = false;
    for (const Impl& m : lut.layers[i].impls)
      if (m.ok() && m.library != "fused" && pool_of(m) == pool && (!any || m.latency_ms.median < least)) least = m.latency_ms.median, any = true;
    return least;
  };
  auto charge = [&](size_t i, int from, int to) { return lut.runtime.handoff(ThreadPoolId(from), ThreadPoolId(to), step_ms(i, to)); };
  int cur = pool_index("caller");
  double total = 0;
  for (size_t i = 1; i < lut.layers.size(); ++i) {
    const Impl& m = lut.layers[i].impls[a[i]];
    if (m.library == "fused") continue;
    total += charge(i, cur, pool_of(m));
    cur = pool_of(m);
  }
  return total + charge(lut.layers.size() - 1, cur, pool_index("caller"));
}

inline double brute_with_handoffs(const Lut& lut, std::vector<int>* best) {
  double opt = kInf;
  for_each_assignment(lut, [&](const std::vector<int>& a) {
    const double l = lut_latency(lut, a) + lut_handoffs(lut, a);
    if (l < opt) opt = l, *best = a;
  });
  return opt;
}

// A fanout_dag_lut of 4-6 layers with 2-4 impls each (sizes drawn from `r`), every step on a
// random library at 1 or 2 threads: steps on the caller and on every pool.
inline Lut pooled_dag_lut(uint64_t seed, Rng& r) {
  const int n = 4 + r.below(3), impls = 2 + r.below(3);  // drawn in this order
  Lut lut = fanout_dag_lut(seed, n, impls, 2);
  const char* libs[] = {"native", "xnnpack", "onednn", "openblas"};
  for (size_t i = 1; i < lut.layers.size(); ++i)
    for (Impl& m : lut.layers[i].impls)
      if (m.library != "fused") m.library = libs[r.below(4)], m.threads = 1 + r.below(2);
  return lut;
}

// Adds a hand-off matrix measured with `item_us` items, each pair of pools drawn in [0, scale) ms.
inline void add_random_handoffs(Lut& lut, Rng& r, double item_us, double scale) {
  lut.runtime.handoffs.push_back({item_us, std::vector<double>(kThreadPoolCount * kThreadPoolCount, 0.0)});
  for (int f = 0; f < kThreadPoolCount; ++f)
    for (int t = 0; t < kThreadPoolCount; ++t)
      if (f != t) lut.runtime.handoffs.back().ms[f * kThreadPoolCount + t] = scale * r.uniform();
}

// The exact agent and the ILP on `lut` both reach `want`, its brute-force optimum, and report
// what predict_latency_ms and `lut_cost` (the brute force's cost of an assignment) say of their
// answer. False (nothing checked) where the LUT does not compile.
template <typename Cost>
bool check_exact_and_ilp(const Lut& lut, double want, Cost lut_cost) {
  const std::optional<Problem> compiled = compile_feasible(lut, want);
  if (!compiled) return false;
  const Problem& p = *compiled;
  DeploymentEnv env(p);
  const SearchResult ex = run_search("exact", env), ilp = run_search("ilp", env);
  CHECK(ex.proven_optimal);
  CHECK(ex.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
  CHECK(ilp.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
  for (const SearchResult* s : {&ex, &ilp}) {
    CHECK(s->best_latency_ms == doctest::Approx(predict_latency_ms(p, s->best)).epsilon(1e-12));
    CHECK(lut_cost(lut, s->best) == doctest::Approx(s->best_latency_ms).epsilon(1e-12));
  }
  return true;
}

}  // namespace lw::testing
