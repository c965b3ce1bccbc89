// The DQN agent (links LibTorch): masks respected, deterministic for a seed, learns Fig. 2.
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

  Problem f;
  REQUIRE(compile_problem(testing::fig2_lut(), &f).is_ok());
  DeploymentEnv env(f);
  AgentRequest req;
  req.seed = 1;
  req.episodes = 300;
  req.config_json = R"({"learning_starts": 50, "batch": 16, "target_every": 50})";
  SearchResult r;
  REQUIRE(run_agent("dqn", env, req, &r).is_ok());
  CHECK(r.best_latency_ms == doctest::Approx(4.0));
}
