// The DQN agent (links LibTorch): masks respected, deterministic for a seed, and a greedy
// rollout that learns what random search and the untrained network miss.
#include <doctest/doctest.h>

#include "agents/agent.h"
#include "agents/dqn.h"
#include "env/synthetic_lut.h"
#include "tests/lut_fixtures.h"

using namespace lw;

TEST_CASE("dqn: masks, determinism, and a small instance") {
  register_dqn_agent();
  SyntheticLutOptions o;
  o.failed_fraction = 0.25;
  o.zoo.input = {1, 3, 64, 64};
  Lut lut;
  REQUIRE(synthetic_zoo_lut("squeezenet1_1", o, &lut).is_ok());
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  auto go = [&](uint64_t seed) {
    DeploymentEnv env(p);
    AgentRequest req;
    req.seed = seed;
    req.episodes = 20;
    req.config_json = R"({"learning_starts": 100, "batch": 16})";
    SearchResult r;
    REQUIRE(run_agent("dqn", env, req, &r).is_ok());
    return r;
  };
  SearchResult a = go(7), b = go(7);
  CHECK(a.best == b.best);
  REQUIRE(a.curve.size() == b.curve.size());
  for (size_t i = 0; i < a.curve.size(); ++i) CHECK(a.curve[i].return_ms == b.curve[i].return_ms);
  for (const auto& s : a.solutions)
    for (int i = 0; i < p.n; ++i) CHECK(lut.layers[i].impls[s.assignment[i]].ok());
  // The n-step cut at random picks is on by default, echoed, and only 0 or 1.
  CHECK(a.config_json.find("\"cut_at_random\":1") != std::string::npos);
  DeploymentEnv env(p);
  AgentRequest bad;
  bad.config_json = R"({"cut_at_random": 2})";
  SearchResult r;
  CHECK_FALSE(run_agent("dqn", env, bad, &r).is_ok());
}

TEST_CASE("dqn: its greedy rollout learns the two-step traps that random search and the untrained network miss") {
  register_dqn_agent();
  Lut lut = testing::trap_chain_lut(4);
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  const double opt = testing::brute_force(lut);
  auto go = [&](const std::string& agent, int episodes, const std::string& config) {
    DeploymentEnv env(p);
    AgentRequest req;
    req.seed = 1;
    req.episodes = episodes;
    req.config_json = config;
    SearchResult r;
    REQUIRE(run_agent(agent, env, req, &r).is_ok());
    return r;
  };
  const std::string small = R"({"batch": 32, "learning_starts": 2, "target_every": 50, "eval_every": 5})";
  // No gradient step at all: what the features and the bound give without learning.
  SearchResult untrained = go("dqn", 150, R"({"learning_starts": 100000})");
  CHECK(untrained.best_latency_ms > opt + 1);
  SearchResult r = go("dqn", 150, small);
  CHECK(r.greedy_answer);
  CHECK(r.best_latency_ms == doctest::Approx(opt));
  CHECK(predict_latency_ms(p, r.best) == doctest::Approx(opt));
  // Random search with as many episodes (the DQN also ran 31 greedy evaluations) misses it.
  CHECK(go("random", 150 + 31, "{}").best_latency_ms > opt + 1);
}

TEST_CASE("dqn: on random DAGs the greedy answer is a feasible deployment the LUT prices the same") {
  // Branches, skipped producers and missing conversions. With a high epsilon, many n-step
  // returns are cut at random picks. The answer must be feasible, and its latency must match
  // the LUT contract computed independently (tests/lut_fixtures.h). It can never beat brute force.
  register_dqn_agent();
  int checked = 0, optimal = 0;
  for (uint64_t seed = 0; checked < 20 && seed < 200; ++seed) {
    Lut lut = testing::random_dag_lut(seed + 9000, 8, 4, 3);
    Problem p;
    if (!compile_problem(lut, &p).is_ok()) continue;
    const double want = testing::brute_force(lut);
    DeploymentEnv env(p);
    AgentRequest req;
    req.seed = seed;
    req.episodes = 30;
    req.config_json = R"({"eps_start": 0.5, "learning_starts": 2, "batch": 16, "eval_every": 5})";
    SearchResult r;
    REQUIRE(run_agent("dqn", env, req, &r).is_ok());
    CAPTURE(seed);
    REQUIRE(r.best.size() == size_t(p.n));
    CHECK(r.best_latency_ms < kInf);
    CHECK(testing::lut_latency(lut, r.best) == doctest::Approx(r.best_latency_ms));
    CHECK(r.best_latency_ms >= want * (1 - 1e-12));
    optimal += r.best_latency_ms <= want * (1 + 1e-9);
    ++checked;
  }
  CHECK(checked == 20);
  MESSAGE("checked " << checked << ", greedy answer optimal on " << optimal);
}
