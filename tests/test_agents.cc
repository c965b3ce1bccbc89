// agents/: exact solver vs brute force, QS-DNN Fig. 2, masks, ILP budgets, determinism.
#include <doctest/doctest.h>

#include "agents/agent.h"
#include "agents/ilp.h"
#include "env/synthetic_lut.h"
#include "tests/lut_fixtures.h"

using namespace lw;
using namespace lw::testing;

namespace {
SearchResult run(const std::string& agent, const Problem& p, uint64_t seed = 1, int episodes = 0,
                 const std::string& config = "{}");
}
namespace {
SearchResult run(const std::string& agent, const Problem& p, uint64_t seed, int episodes, const std::string& config) {
  DeploymentEnv env(p);
  AgentRequest req;
  req.seed = seed;
  req.episodes = episodes;
  req.config_json = config;
  SearchResult r;
  Status s = run_agent(agent, env, req, &r);
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  return r;
}
Problem compile(const Lut& lut) {
  Problem p;
  Status s = compile_problem(lut, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  return p;
}
}  // namespace

TEST_CASE("exact: equals brute force on 1000 random small DAGs") {
  int solved = 0, infeasible = 0, branched = 0;
  for (uint64_t seed = 0; solved < 1000; ++seed) {
    Rng r(seed * 7919 + 1);
    Lut lut = random_dag_lut(seed, 3 + r.below(6), 2 + r.below(3), 2 + r.below(2));
    const double want = brute_force(lut);
    Problem p;
    if (!compile_problem(lut, &p).is_ok()) {
      CHECK(want == kInf);
      ++infeasible;
      continue;
    }
    REQUIRE(want < kInf);
    SearchResult res = run("exact", p);
    CHECK(res.proven_optimal);
    CHECK(res.best_latency_ms == doctest::Approx(want).epsilon(1e-12));
    CHECK(lut_latency(lut, res.best) == doctest::Approx(want).epsilon(1e-12));
    branched += res.note.find(" 0 branch-and-bound") == std::string::npos;
    ++solved;
  }
  MESSAGE("solved " << solved << ", infeasible skipped " << infeasible << ", needed branching " << branched);
}

TEST_CASE("exact: branch and bound on a graph that does not reduce (K4-like)") {
  // Every layer reads all earlier layers: degree >= 3 everywhere, so RI/RII alone cannot finish.
  for (uint64_t seed = 0; seed < 30; ++seed) {
    Lut lut = random_dag_lut(seed + 5000, 6, 3, 2);
    for (int i = 2; i < 6; ++i) {
      lut.layers[i].inputs.clear();
      for (int j = 0; j < i; ++j) lut.layers[i].inputs.push_back(j);
    }
    for (int c = 2; c < 6; ++c)
      for (int p = 0; p < c; ++p)
        for (int a = 0; a < 2; ++a) lut.conversions.push_back({p, c, a, 1 - a, -1, 0.5 + seed % 3, {"x"}});
    const double want = brute_force(lut);
    Problem p;
    if (!compile_problem(lut, &p).is_ok()) continue;
    SearchResult res = run("exact", p);
    CHECK(res.best_latency_ms == doctest::Approx(want).epsilon(1e-12));
  }
}

TEST_CASE("Q-learning escapes the QS-DNN Fig. 2 local minimum where DS and DS+ fail") {
  Lut lut = fig2_lut();
  Problem p = compile(lut);
  const double opt = brute_force(lut);
  CHECK(opt == doctest::Approx(4.0));
  CHECK(run("greedy", p).best_latency_ms > opt + 1);
  CHECK(run("greedy_penalty", p).best_latency_ms > opt + 1);
  SearchResult q = run("qlearning", p, 3, 200);
  CHECK(q.best_latency_ms == doctest::Approx(opt));
  // The greedy policy at the end of the schedule (ε = 0 episodes) follows the optimum too.
  CHECK(-q.curve.back().return_ms == doctest::Approx(opt));
  CHECK(run("dijkstra", p).best_latency_ms == doctest::Approx(opt));
  CHECK(run("astar", p).best_latency_ms == doctest::Approx(opt));
}

TEST_CASE("masks: no agent ever picks an unsupported or failed implementation") {
  SyntheticLutOptions o;
  o.failed_fraction = 0.25;
  o.zoo.input = {1, 3, 64, 64};
  Lut lut;
  REQUIRE(synthetic_zoo_lut("squeezenet1_1", o, &lut).is_ok());
  Problem p = compile(lut);
  for (const auto& e : agents()) {
    if (std::string(e.name) == "dqn") continue;  // tested in test_agents_dqn
    SearchResult r = run(e.name, p, 2, 50);
    REQUIRE(!r.best.empty());
    CHECK(r.best_latency_ms < kInf);
    for (const auto& s : r.solutions)
      for (int i = 0; i < p.n; ++i) CHECK_MESSAGE(lut.layers[i].impls[s.assignment[i]].ok(), e.name << " layer " << i);
  }
}

TEST_CASE("agents: exact <= every other agent, ILP equals exact, baselines reasonable") {
  Lut lut;
  REQUIRE(synthetic_zoo_lut("resnet18", {}, &lut).is_ok());
  Problem p = compile(lut);
  SearchResult ex = run("exact", p), ilp = run("ilp", p);
  CHECK(ilp.best_latency_ms == doctest::Approx(ex.best_latency_ms).epsilon(1e-9));
  for (const char* a : {"random", "greedy", "greedy_penalty", "dijkstra", "astar", "qlearning"})
    CHECK(run(a, p, 1, 300).best_latency_ms >= ex.best_latency_ms - 1e-9);
}

// Sweeps on larger LUTs take CBC seconds to minutes (a memory budget makes it a knapsack), so
// the test uses small random DAGs; bench_agents times the zoo models.
void check_sweep(const Problem& p, MemoryModel mm, int points) {
  DeploymentEnv env(p);
  std::vector<IlpSolution> front;
  REQUIRE(ilp_pareto(env, mm, points, &front).is_ok());
  REQUIRE(!front.empty());
  double prev = -1;
  for (const auto& s : front) {
    CHECK(s.proven_optimal);
    CHECK(linear_memory_bytes(p, s.assignment, mm) <= s.budget_bytes);
    CHECK(s.memory_bytes == linear_memory_bytes(p, s.assignment, mm));
    if (prev >= 0) CHECK(s.latency_ms <= prev + 1e-9);  // a larger budget never makes the optimum slower
    prev = s.latency_ms;
  }
  // The loosest budget reaches the unconstrained optimum.
  CHECK(front.back().latency_ms == doctest::Approx(run("exact", p).best_latency_ms).epsilon(1e-9));
}

TEST_CASE("ilp: every point of a memory-budget sweep respects its budget") {
  int checked = 0;
  for (uint64_t seed = 0; checked < 20; ++seed) {
    Lut lut = random_dag_lut(seed + 900, 9, 4, 2);
    Problem p;
    if (!compile_problem(lut, &p).is_ok()) continue;
    ++checked;
    for (MemoryModel mm : {MemoryModel::kWholeNetwork, MemoryModel::kLayerByLayer}) {
      check_sweep(p, mm, 5);
      // Brute force: least latency within the tightest budget of the linear model.
      DeploymentEnv env(p);
      std::vector<IlpSolution> front;
      REQUIRE(ilp_pareto(env, mm, 2, &front).is_ok());
      const int64_t budget = front.front().budget_bytes;
      double want = kInf;
      std::vector<int> a(p.n, 0);
      for (;;) {
        if (predict_latency_ms(p, a) < kInf && linear_memory_bytes(p, a, mm) <= budget)
          want = std::min(want, predict_latency_ms(p, a));
        int i = 0;
        while (i < p.n && ++a[i] == p.actions(i)) a[i++] = 0;
        if (i == p.n) break;
      }
      CHECK(front.front().latency_ms == doctest::Approx(want).epsilon(1e-9));
    }
  }
  Problem p;
  for (uint64_t seed = 0; !compile_problem(random_dag_lut(seed, 12, 4, 2), &p).is_ok();) ++seed;
  // Minimum memory under a latency budget meets the budget.
  DeploymentEnv env(p);
  IlpOptions mo;
  mo.objective = IlpObjective::kMemory;
  mo.latency_budget_ms = 1.2 * run("exact", p).best_latency_ms;
  IlpSolution s;
  REQUIRE(solve_ilp(env, mo, &s).is_ok());
  CHECK(s.latency_ms <= mo.latency_budget_ms + 1e-6);
}

TEST_CASE("determinism: same LUT, config and seed give identical results") {
  Lut lut;
  REQUIRE(synthetic_zoo_lut("mobilenetv2", {}, &lut).is_ok());
  Problem p = compile(lut);
  for (const char* a : {"qlearning", "random"}) {
    SearchResult x = run(a, p, 42, 100), y = run(a, p, 42, 100), z = run(a, p, 43, 100);
    CHECK(x.best == y.best);
    REQUIRE(x.curve.size() == y.curve.size());
    for (size_t i = 0; i < x.curve.size(); ++i) CHECK(x.curve[i].return_ms == y.curve[i].return_ms);
    CHECK(x.solutions.size() == y.solutions.size());
    CHECK((x.curve[0].return_ms != z.curve[0].return_ms || x.best != z.best));
  }
}

TEST_CASE("config: unknown keys and bad values are rejected with their path") {
  Problem p = compile(fig2_lut());
  DeploymentEnv env(p);
  AgentRequest req;
  SearchResult r;
  req.config_json = R"({"alpah": 0.1})";
  Status s = run_agent("qlearning", env, req, &r);
  CHECK(s.message() == "qlearning config: /alpah: unknown key");
  req.config_json = R"({"replay_batch": -1})";
  CHECK(!run_agent("qlearning", env, req, &r).is_ok());
  CHECK(run_agent("nope", env, {}, &r).code() == StatusCode::kNotFound);
}
