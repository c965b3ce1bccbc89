// One cost model (issue 16 item 2): on random DAGs with fan-out the exact solver, the ILP and
// brute force agree on the optimum of the shared-conversion latency; every agent reports the
// cost predict_latency_ms gives its assignment; the env's step costs sum to it; a peak-memory
// limit constrains the search itself (exact, ILP, episodic agents), not only the filter.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "agents/ilp.h"
#include "env/synthetic_lut.h"
#include "tests/agent_fixtures.h"

using namespace lw;
using namespace lw::testing;

namespace {

bool has_fanout(const Problem& p) {
  for (int j = 0; j < p.n; ++j)
    if (p.fanout(j) > 1) return true;
  return false;
}

}  // namespace

TEST_CASE("one cost model: exact == ILP == brute force on 300 random DAGs with fan-out") {
  int solved = 0, infeasible = 0, shared = 0;
  for (uint64_t seed = 0; solved < 300; ++seed) {
    Rng r(seed * 104729 + 3);
    const int n = 4 + r.below(4), impls = 2 + r.below(3), formats = 2 + r.below(2);  // drawn in this order
    Lut lut = fanout_dag_lut(seed, n, impls, formats);
    std::vector<int> brute;
    const double want = brute_force(lut, &brute);
    const std::optional<Problem> compiled = compile_feasible(lut, want);
    if (!compiled) {
      ++infeasible;
      continue;
    }
    REQUIRE(want < kInf);
    const Problem& p = *compiled;
    if (!has_fanout(p)) continue;
    CAPTURE(seed);
    DeploymentEnv env(p);
    SearchResult ex = run_search("exact", env), ilp = run_search("ilp", env);
    CHECK(ex.proven_optimal);
    CHECK(ex.best_latency_ms == doctest::Approx(want).epsilon(1e-12));
    CHECK(ilp.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
    // The reported cost is the one function's cost of the reported assignment.
    for (const SearchResult* s : {&ex, &ilp}) {
      CHECK(s->best_latency_ms == predict_latency_ms(p, s->best));
      CHECK(lut_latency(lut, s->best) == doctest::Approx(s->best_latency_ms).epsilon(1e-12));
    }
    // Where sharing matters, the per-edge sum would have charged more than the model.
    double per_edge = 0;
    for (int t = 0; t < p.n; ++t) per_edge += p.impl_ms[p.offset[t] + brute[t]];
    for (const auto& e : p.edges) per_edge += p.edge_cost(e, brute[e.producer], brute[e.consumer]);
    per_edge += p.out_ms[brute[p.n - 1]];
    shared += per_edge > want + 1e-9;
    ++solved;
  }
  MESSAGE("solved " << solved << ", infeasible skipped " << infeasible << ", optimum with a shared conversion " << shared);
  CHECK(shared > 10);  // the cases the old per-edge model got wrong are really exercised
}

TEST_CASE("streamed outputs: exact == ILP == brute force on 200 random DAGs; the charge is the LUT's f x extra") {
  int solved = 0, charged = 0;
  for (uint64_t seed = 0; solved < 200; ++seed) {
    Rng r(seed * 7919 + 11);
    const int n = 4 + r.below(4), impls = 2 + r.below(3), formats = 2 + r.below(2);
    Lut lut = fanout_dag_lut(seed, n, impls, formats);
    add_streams(&lut, seed);
    std::vector<int> brute;
    const double want = brute_force(lut, &brute);
    const std::optional<Problem> compiled = compile_feasible(lut, want);
    if (!compiled) continue;
    const Problem& p = *compiled;
    CAPTURE(seed);
    if (!p.has_streams()) continue;  // (no impl of this draw streams, or none pays for it)
    DeploymentEnv env(p);
    SearchResult ex = run_search("exact", env), ilp = run_search("ilp", env);
    CHECK(ex.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
    CHECK(ilp.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
    CHECK(lut_latency(lut, ilp.best) == doctest::Approx(ilp.best_latency_ms).epsilon(1e-12));
    double streamed = 0;
    for (int t = 0; t < p.n; ++t) streamed += streamed_in_ms(p, brute.data(), t, brute[t]);
    charged += streamed > 0;
    ++solved;
  }
  MESSAGE("solved " << solved << ", optimum paying a streamed output " << charged);
  CHECK(charged > 20);
}

TEST_CASE("streamed outputs: a pool after a streaming conv pays f x its extra, a conversion its first converter's") {
  Lut lut;
  lut.model_name = "streams";
  lut.formats = {{Layout::kNCHW, DType::kF32, 1}, {Layout::kNHWC, DType::kF32, 1}};
  lut.layers.push_back(layer("input", LayerKind::kInput, {}, {impl("in", 0, 0, 0, "input")}));
  Impl streams = impl("conv_nt", 0, 0, 1.0), plain = impl("conv", 0, 0, 1.1);
  streams.output_in_memory = 0.5;
  streams.fused_activation = plain.fused_activation = true;
  lut.layers.push_back(layer("conv", LayerKind::kConv2d, {0}, {streams, plain}));
  lut.layers.push_back(layer("relu", LayerKind::kRelu, {1}, {impl("fused", 0, 0, 0, "fused")}));
  Impl pool_nchw = impl("pool_nchw", 0, 0, 0.05), pool_nhwc = impl("pool_nhwc", 1, 1, 0.04);
  pool_nchw.input_in_memory_ms = 0.2;
  lut.layers.push_back(layer("pool", LayerKind::kMaxPool, {2}, {pool_nchw, pool_nhwc}));
  for (LutLayer& l : lut.layers) l.out_shape = {1, 8, 4, 4};
  Conversion c{2, 3, 0, 1, 0.01, 0.01, {"convert"}};
  c.input_in_memory_ms = 0.03;
  lut.conversions = {c, Conversion{3, -1, 1, 0, 0.02, 0.02, {"convert"}}};
  lut.output_format = 0;
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  REQUIRE(p.has_streams());
  // The relu is the conv's fused pseudo-impl: the pool reads what the conv left in memory.
  CHECK(predict_latency_ms(p, {0, 0, 0, 0}) == doctest::Approx(1.0 + 0.05 + 0.5 * 0.2));
  CHECK(predict_latency_ms(p, {0, 1, 0, 0}) == doctest::Approx(1.1 + 0.05));
  // Through a conversion the first converter pays, not the pool (its input is the copy).
  CHECK(predict_latency_ms(p, {0, 0, 0, 1}) == doctest::Approx(1.0 + 0.01 + 0.04 + 0.02 + 0.5 * 0.03).epsilon(1e-12));
  CHECK(predict_latency_ms(p, {0, 0, 0, 1}) < predict_latency_ms(p, {0, 0, 0, 0}));
  DeploymentEnv env(p);
  CHECK(run_search("exact", env).best == std::vector<int>{0, 0, 0, 1});
  // The figures read back from the LUT file; one out of range is an error naming its path.
  Lut back;
  Status s = lut_from_json(lut_to_json(lut), "mem", &back);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  CHECK(back.layers[1].impls[0].output_in_memory == doctest::Approx(0.5));
  CHECK(back.layers[3].impls[0].input_in_memory_ms == doctest::Approx(0.2));
  CHECK(back.conversions[0].input_in_memory_ms == doctest::Approx(0.03));
  CHECK(back.layers[1].impls[1].output_in_memory == 0);
  nlohmann::json j = nlohmann::json::parse(lut_to_json(lut));
  j["layers"][1]["impls"][0]["output_in_memory"] = 1.5;
  Status bad = lut_from_json(j.dump(), "bad.json", &back);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.message().find("/layers/1/impls/0/output_in_memory") != std::string::npos);
  // A LUT that measured nothing of it charges nothing.
  lut.layers[1].impls[0].output_in_memory = 0;
  REQUIRE(compile_problem(lut, &p).is_ok());
  CHECK_FALSE(p.has_streams());
  CHECK(predict_latency_ms(p, {0, 0, 0, 0}) == doctest::Approx(1.0 + 0.05));
}

TEST_CASE("one cost model: every agent's reported cost is predict_latency_ms of its answer; env steps sum to it") {
  Lut lut;
  REQUIRE(synthetic_zoo_lut("resnet18", {}, &lut).is_ok());
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  DeploymentEnv env(p);
  SearchResult ex = run_search("exact", env);
  for (const char* a : {"exact", "ilp", "random", "greedy", "greedy_penalty", "dijkstra", "astar", "qlearning"}) {
    SearchResult r = run_search(a, env, 1, 200);
    CAPTURE(a);
    CHECK(r.best_latency_ms == doctest::Approx(predict_latency_ms(p, r.best)).epsilon(1e-12));
    CHECK(r.best_latency_ms >= ex.best_latency_ms - 1e-9);
    for (const Solution& s : r.solutions) CHECK(s.latency_ms == doctest::Approx(predict_latency_ms(p, s.assignment)).epsilon(1e-12));
  }
  env.reset();
  double ret = 0;
  for (int t = 0; t < p.n; ++t) ret += env.step(ex.best[t]).reward;
  CHECK(-ret == doctest::Approx(ex.best_latency_ms).epsilon(1e-12));
}

TEST_CASE("peak-memory limit: exact and ILP give the best deployment within it; the other agents respect it") {
  int checked = 0, binding = 0, searched = 0;
  for (uint64_t seed = 0; checked < 60 && seed < 2000; ++seed) {
    Rng r(seed * 7 + 11);
    const int n = 4 + r.below(3), impls = 2 + r.below(3);  // drawn in this order
    Lut lut = fanout_dag_lut(seed + 900, n, impls, 2);
    Problem p;
    if (!compile_problem(lut, &p).is_ok()) continue;
    std::vector<int> fastest;
    const double free_opt = brute_force(lut, &fastest);
    // A limit between the least memory of any finite deployment and the fastest one's.
    int64_t least = INT64_MAX;
    std::vector<int> a(p.n, 0);
    for (;;) {
      if (lut_latency(lut, a) < kInf) least = std::min(least, lut_peak_memory(lut, a));
      int i = 0;
      while (i < p.n && ++a[i] == p.actions(i)) a[i++] = 0;
      if (i == p.n) break;
    }
    const int64_t top = lut_peak_memory(lut, fastest);
    if (least >= top) continue;  // the limit could not bind
    EnvOptions o;
    o.max_memory_bytes = least + (top - least) / 2;
    std::vector<int> best;
    const double want = brute_force(lut, &best, o.max_memory_bytes);
    REQUIRE(want < kInf);
    CAPTURE(seed);
    DeploymentEnv env(p, o);
    SearchResult ex = run_search("exact", env), ilp = run_search("ilp", env);
    CHECK(ex.proven_optimal);
    for (const SearchResult* s : {&ex, &ilp}) {
      CHECK(s->best_latency_ms == doctest::Approx(want).epsilon(1e-9));
      CHECK(predict_memory_bytes(p, s->best) <= o.max_memory_bytes);
      CHECK(predict_memory_bytes(p, s->best) == lut_peak_memory(lut, s->best));
    }
    for (const char* agent : {"qlearning", "random"}) {
      SearchResult q = run_search(agent, env, 2, 300);
      for (const Solution& s : q.solutions) CHECK(predict_memory_bytes(p, s.assignment) <= o.max_memory_bytes);
      if (!q.best.empty()) CHECK(q.best_latency_ms >= want - 1e-9);
    }
    for (const char* agent : {"dijkstra", "astar", "greedy_penalty"}) {  // may dead-end: then they say so
      AgentRequest req;
      SearchResult g;
      if (!run_agent(agent, env, req, &g).is_ok()) continue;
      ++searched;
      CHECK(predict_memory_bytes(p, g.best) <= o.max_memory_bytes);
      CHECK(g.best_latency_ms >= want - 1e-9);
    }
    binding += want > free_opt + 1e-9;
    ++checked;
  }
  MESSAGE("checked " << checked << ", the limit changed the optimum in " << binding << "; graph / greedy answers " << searched);
  CHECK(checked == 60);
  CHECK(searched > 30);
  CHECK(binding > 10);
}
