// Thread-pool hand-offs in the one cost model (issue 16 item 3): a LUT's runtime.handoffs
// is charged between consecutive steps on different pools (a fused pseudo-impl runs nothing
// and keeps the pool of its absorber), by predict, the env's steps, the bounds, the exact
// solver and the ILP alike; a hand-made LUT where the hand-offs move the optimum; random
// DAGs where exact == ILP == an independent brute force; the JSON round trip, and an old
// LUT without hand-offs reading as none; matrices measured with items of several lengths,
// read at each layer's step length.
#include <doctest/doctest.h>

#include "agents/bounds.h"
#include "agents/ilp.h"
#include "env/runtime_costs.h"
#include "tests/agent_fixtures.h"
#include "tests/handoff_fixtures.h"

using namespace lw;
using namespace lw::testing;

namespace {

// The best latency with hand-offs among the deployments that are optimal without them (to
// 1e-9): above the optimum with hand-offs when they move it, whichever of several tied plain
// optima a brute force would keep.
double best_plain_optimum_with_handoffs(const Lut& lut) {
  const double plain = brute_force(lut);
  double best = kInf;
  for_each_assignment(lut, [&](const std::vector<int>& a) {
    const double l = lut_latency(lut, a);
    if (l <= plain + 1e-9) best = std::min(best, l + lut_handoffs(lut, a));
  });
  return best;
}

Impl on(const char* name, const char* library, double ms, bool fused_act = false) {
  Impl m = impl(name, 0, 0, ms, library);
  m.threads = 2;
  m.fused_activation = fused_act;
  return m;
}

// conv -> conv(+relu) -> relu -> conv, each with native kernels or oneDNN (2 threads, one
// format). With the native kernels on our own worker (ScopedNativeKernelsPool) the two run on
// different pools: by latency alone the optimum alternates them; with a 0.3 ms hand-off
// between them it stays native, and the fused relu keeps the pool of the conv that absorbs it.
Lut alternating_lut() {
  Lut lut;
  lut.model_name = "alternating";
  lut.formats.push_back({Layout::kNHWC, DType::kF32, 2});
  lut.layers.push_back(layer("input", LayerKind::kInput, {}, {impl("in", 0, 0, 0, "input")}));
  lut.layers.push_back(layer("c1", LayerKind::kConv2d, {0}, {on("x1", "native", 1.0), on("o1", "onednn", 1.15)}));
  lut.layers.push_back(layer("c2", LayerKind::kConv2d, {1},
                             {on("x2", "native", 1.2, true), on("o2", "onednn", 1.0, true), on("o2p", "onednn", 1.05)}));
  lut.layers.push_back(layer("r2", LayerKind::kRelu, {2}, {on("fused", "fused", 0.0), on("xr", "native", 0.1), on("or", "onednn", 0.1)}));
  lut.layers.push_back(layer("c3", LayerKind::kConv2d, {3}, {on("x3", "native", 1.0), on("o3", "onednn", 1.1)}));
  return lut;
}

}  // namespace

TEST_CASE("hand-offs: a measured hand-off moves the optimum; predict, env steps, exact and ILP agree") {
  ScopedNativeKernelsPool own(ThreadPoolId::kNative);
  Lut lut = alternating_lut();
  Problem plain;
  REQUIRE(compile_problem(lut, &plain).is_ok());
  CHECK_FALSE(plain.has_handoffs());
  DeploymentEnv env0(plain);
  const SearchResult before = run_search("exact", env0);
  CHECK(before.best == std::vector<int>{0, 0, 1, 0, 0});  // x1, o2 fused, fused relu, x3: 3.0 ms
  CHECK(before.best_latency_ms == doctest::Approx(3.0));

  set_handoff(lut, "native", "openmp", 0.3);
  set_handoff(lut, "openmp", "native", 0.3);
  set_handoff(lut, "caller", "native", 0.05);
  set_handoff(lut, "caller", "openmp", 0.02);
  set_handoff(lut, "native", "caller", 0.01);
  set_handoff(lut, "openmp", "caller", 0.04);
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  REQUIRE(p.has_handoffs());
  std::vector<int> brute;
  const double want = brute_with_handoffs(lut, &brute);
  CHECK(brute == std::vector<int>{0, 0, 0, 0, 0});  // all native: 3.2 + 0.05 + 0.01
  CHECK(want == doctest::Approx(3.26));
  // The old optimum now pays two hand-offs, through the fused relu's walk back to its conv.
  CHECK(predict_latency_ms(p, before.best) == doctest::Approx(3.0 + 0.05 + 0.3 + 0.3 + 0.01));
  DeploymentEnv env(p);
  for (std::string agent : {"exact", "ilp", "qlearning", "dijkstra", "astar"}) {
    CAPTURE(agent);
    const SearchResult r = run_search(agent, env, 1, 300);
    CHECK(r.best_latency_ms == predict_latency_ms(p, r.best));
    // Dijkstra and A* settle a (layer, impl) state once, as in QS-DNN: the fused relu's state
    // is settled by the cheaper oneDNN path first, so they are heuristics here (as on DAGs).
    if (agent == "dijkstra" || agent == "astar") continue;
    CHECK(r.best == brute);
    CHECK(r.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
  }
  env.reset();
  double ret = 0;
  for (int t = 0; t < p.n; ++t) ret += env.step(brute[t]).reward;
  CHECK(-ret == doctest::Approx(want).epsilon(1e-12));
  // The bounds stay admissible: lb + to_go of the next layer never exceeds the optimum.
  const Bounds b(env);
  CHECK(b.lb[p.offset[1] + brute[1]] + b.to_go[2] <= want + 1e-12);
  CHECK(b.to_go[0] <= want + 1e-12);
}

TEST_CASE("hand-offs: a conversion into a 2-thread format runs on its consumer's pool: its chain alone, no hand-off of its own") {
  ScopedNativeKernelsPool own(ThreadPoolId::kNative);  // (conversions would run on our worker)
  for (double chain : {0.004, 0.5}) {
    CAPTURE(chain);
    Lut lut = alternating_lut();
    lut.formats.push_back({Layout::kNCHW, DType::kF32, 2});
    for (Impl& m : lut.layers[4].impls) m.in_format = 1;  // c3 reads NCHW: r2 -> c3 converts
    lut.conversions.push_back({3, 4, 0, 1, -1, chain, {"conv"}});
    lut.conversions.push_back({4, -1, 0, 1, -1, 0.001, {"conv"}});
    lut.output_format = 0;
    Problem plain;
    REQUIRE(compile_problem(lut, &plain).is_ok());
    set_handoff(lut, "caller", "native", 0.03);
    set_handoff(lut, "openmp", "native", 0.025);
    Problem p;
    REQUIRE(compile_problem(lut, &p).is_ok());
    const std::vector<int> all_o = {0, 1, 1, 0, 1};  // no hand-off into native: all steps on libgomp's team
    CHECK(predict_latency_ms(p, all_o) == doctest::Approx(predict_latency_ms(plain, all_o)));
    CHECK(predict_latency_ms(plain, all_o) == doctest::Approx(1.15 + 1.0 + 1.1 + chain));  // o1, o2, o3 and r2 -> c3
  }
}

TEST_CASE("hand-offs: a change of thread set alone wakes no pool: no detour charged, a caller step in the executor") {
  Lut lut = alternating_lut();
  lut.formats.push_back({Layout::kNHWC, DType::kF32, 1});  // r2 may run on the caller: r2 -> c3 changes sets only
  lut.layers[3].impls.push_back(impl("cr", 1, 1, 0.1, "xnnpack"));
  lut.conversions.push_back({3, 4, 1, 0, -1, 0.004, {"conv"}});
  lut.conversions.push_back({2, 3, 0, 1, -1, 0.004, {"conv"}});
  set_handoff(lut, "caller", "native", 0.03);
  set_handoff(lut, "xnnpack", "native", 0.02);
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  const int F = p.n_formats;
  CHECK(p.conv_ms[(size_t(3) * F + 1) * F + 0] == doctest::Approx(0.004));  // no detour into t2
  CHECK(p.conv_ms[(size_t(2) * F + 0) * F + 1] == doctest::Approx(0.004));  // none out of it either

  const Format t1{Layout::kNHWC, DType::kF32, 1}, t2{Layout::kNHWC, DType::kF32, 2}, nchw2{Layout::kNCHW, DType::kF32, 2};
  CHECK(conversion_pool({t1, t2}) == ThreadPoolId::kCaller);
  CHECK(conversion_pool({t2, t1}) == ThreadPoolId::kCaller);
  for (ThreadPoolId on : {ThreadPoolId::kNative, ThreadPoolId::kOpenmp}) {  // a data move: the native kernels' pool
    ScopedNativeKernelsPool set(on);
    CHECK(conversion_pool({t1, nchw2}) == on);
    CHECK(conversion_pool({t2, Format{Layout::kNHWC, DType::kI8, 2}}) == on);
    CHECK(conversion_pool({nchw2, t1}) == ThreadPoolId::kCaller);
  }
}

// The same random DAGs with native kernels on their own pool (three pools: the caller, ours
// and libgomp's team, which XNNPACK's and oneDNN's steps share) and on libgomp's team (two).
void check_random_dags_with_handoffs(ThreadPoolId native_on, int min_moved) {
  ScopedNativeKernelsPool set(native_on);
  int solved = 0, moved = 0;
  for (uint64_t seed = 0; solved < 150; ++seed) {
    Rng r(seed * 7919 + 11);
    Lut lut = pooled_dag_lut(seed, r);
    const double plain = brute_force(lut);
    // One matrix, or (every other DAG) three, read at each layer's step length.
    for (int i = 0; i < (seed % 2 ? 3 : 1); ++i) add_random_handoffs(lut, r, 0.5 + 1000.0 * i, 3);
    std::vector<int> brute;
    const double want = brute_with_handoffs(lut, &brute);
    CAPTURE(seed);
    if (!check_exact_and_ilp(lut, want, [](const Lut& l, const std::vector<int>& a) { return lut_latency(l, a) + lut_handoffs(l, a); }))
      continue;
    moved += plain < kInf && best_plain_optimum_with_handoffs(lut) > want + 1e-9;
    ++solved;
  }
  MESSAGE("native kernels on " << std::string(to_string(native_on)) << ": solved " << solved << ", optimum moved by the hand-offs " << moved);
  CHECK(moved > min_moved);  // the hand-offs really change answers
}

TEST_CASE("hand-offs: exact == ILP == brute force on 150 random DAGs with pools, fused layers and fan-out") {
  check_random_dags_with_handoffs(ThreadPoolId::kNative, 20);
  // (fewer pools, fewer hand-offs to move an optimum: at least 5 % of the DAGs)
  check_random_dags_with_handoffs(ThreadPoolId::kOpenmp, 7);
}

TEST_CASE("hand-offs: the LUT's runtime object round-trips them, an old LUT reads as none, bad keys fail") {
  Lut lut = alternating_lut();
  Lut back;
  REQUIRE(lut_from_json(lut_to_json(lut), "old.json", &back).is_ok());
  CHECK_FALSE(back.runtime.has_handoffs());
  CHECK(back.runtime.handoff(ThreadPoolId::kOpenmp, ThreadPoolId::kXnnpack, 0.1) == 0.0);
  set_handoff(lut, "openmp", "xnnpack", 0.0125);
  set_handoff(lut, "caller", "native", 0.003);
  set_handoff(lut, "openmp", "xnnpack", 0.05, 120);
  REQUIRE(lut_from_json(lut_to_json(lut), "new.json", &back).is_ok());
  REQUIRE(back.runtime.handoffs.size() == 2);
  CHECK(back.runtime.handoffs[1].item_us == 120.0);
  CHECK(back.runtime.handoff(ThreadPoolId::kOpenmp, ThreadPoolId::kXnnpack, 0.02) == 0.0125);
  CHECK(back.runtime.handoff(ThreadPoolId::kOpenmp, ThreadPoolId::kXnnpack, 0.12) == 0.05);
  CHECK(back.runtime.handoff(ThreadPoolId::kCaller, ThreadPoolId::kNative, 0.0) == 0.003);
  CHECK(back.runtime.handoff(ThreadPoolId::kXnnpack, ThreadPoolId::kOpenmp, 0.05) == 0.0);
  std::string text = lut_to_json(lut);
  {  // a LUT from before the items: one "handoff_ms" object, 20 us items unless it says otherwise;
     // one from before OpenBLAS joined the native pool: its "openblas" pairs are dropped
    Lut one = alternating_lut();
    set_handoff(one, "openmp", "xnnpack", 0.0125);
    std::string old_text = lut_to_json(one);
    const size_t at = old_text.find("\"handoffs\"");
    REQUIRE(at != std::string::npos);
    old_text.replace(at, old_text.find(']', at) + 1 - at,
                     "\"handoff_ms\": {\"openblas>native\": 0, \"xnnpack>openblas\": 0, \"openmp>xnnpack\": 0.0125}");
    REQUIRE(lut_from_json(old_text, "old-pools.json", &back).is_ok());
    REQUIRE(back.runtime.handoffs.size() == 1);
    CHECK(back.runtime.handoffs[0].item_us == 20.0);
    CHECK(back.runtime.handoff(ThreadPoolId::kOpenmp, ThreadPoolId::kXnnpack, 1.0) == 0.0125);
    CHECK(thread_pool_of(Library::kOpenBLAS, 2) == native_kernels_pool());
    old_text.replace(old_text.find("\"handoff_ms\""), 12, "\"handoff_item_us\": 55, \"handoff_ms\"");
    REQUIRE(lut_from_json(old_text, "old-item.json", &back).is_ok());
    CHECK(back.runtime.handoffs[0].item_us == 55.0);
  }
  {  // items out of order
    std::string bad = text;
    bad.replace(bad.find("\"item_us\": 120.0"), 16, "\"item_us\": 10.0");
    const Status s = lut_from_json(bad, "order.json", &back);
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find("order.json") != std::string::npos);
    CHECK(s.message().find("/runtime/handoffs/1/item_us") != std::string::npos);
  }
  const size_t at = text.find("\"openmp>xnnpack\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 16, "\"openmp>gpu\"");
  const Status s = lut_from_json(text, "bad.json", &back);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find("bad.json") != std::string::npos);
  CHECK(s.message().find("/runtime/handoffs/0/ms/openmp>gpu") != std::string::npos);
}

TEST_CASE("hand-offs: read at the step's length between the measured items, flat outside them") {
  Lut lut = alternating_lut();
  set_handoff(lut, "openmp", "native", 0.02, 20);
  set_handoff(lut, "openmp", "native", 0.06, 60);
  set_handoff(lut, "openmp", "native", 0.15, 150);
  const RuntimeCosts& rc = lut.runtime;
  const auto h = [&](double step_ms) { return rc.handoff(ThreadPoolId::kOpenmp, ThreadPoolId::kNative, step_ms); };
  CHECK(h(0.002) == doctest::Approx(0.02));  // a short step: the shortest item's
  CHECK(h(0.02) == doctest::Approx(0.02));
  CHECK(h(0.04) == doctest::Approx(0.04));   // halfway between 20 and 60 us
  CHECK(h(0.105) == doctest::Approx(0.105));  // halfway between 60 and 150 us
  CHECK(h(0.15) == doctest::Approx(0.15));
  CHECK(h(2.0) == doctest::Approx(0.15));  // the delay levels off
  CHECK(rc.handoff(ThreadPoolId::kNative, ThreadPoolId::kOpenmp, 0.1) == 0.0);
  CHECK(handoffs_table(rc).find("measured with 60 us items") != std::string::npos);
  CHECK(handoffs_table(rc).find("by the step's length") != std::string::npos);

  // In the cost model, a layer's hand-off is read at its fastest step on the pool it enters:
  // c1 after the input on the caller, into our pool (1.0 ms) or oneDNN's (1.15 ms); r2 into
  // either at 0.1 ms (the fused pseudo-impl runs no step).
  ScopedNativeKernelsPool own(ThreadPoolId::kNative);
  Lut two = alternating_lut();
  set_handoff(two, "caller", "native", 0.01, 100);
  set_handoff(two, "caller", "native", 0.21, 1100);
  set_handoff(two, "caller", "openmp", 0.0, 100);
  Problem p;
  REQUIRE(compile_problem(two, &p).is_ok());
  const int caller = pool_index("caller"), x = pool_index("native");
  CHECK(p.handoff_ms(1, caller, x) == doctest::Approx(0.01 + 0.2 * 0.9));  // 1.0 ms: 900 of the 1000 us
  CHECK(p.handoff_ms(3, caller, x) == doctest::Approx(0.01));               // 0.1 ms: the shortest item's
  const std::vector<int> all_x = {0, 0, 0, 0, 0};  // x1, x2 + fused relu, x3: one hand-off in, at c1's length
  CHECK(predict_latency_ms(p, all_x) == doctest::Approx(1.0 + 1.2 + 1.0 + 0.19));
  std::vector<int> brute;
  const double want = brute_with_handoffs(two, &brute);
  DeploymentEnv env(p);
  CHECK(run_search("ilp", env).best_latency_ms == doctest::Approx(want).epsilon(1e-9));
  CHECK(run_search("exact", env).best_latency_ms == doctest::Approx(want).epsilon(1e-9));
}
