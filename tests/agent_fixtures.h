// What the agent tests share: compile a LUT and run one agent, failing the calling test (with
// the Status) where either goes wrong.
#pragma once
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "agents/agent.h"
#include "tests/lut_fixtures.h"

namespace lw::testing {

inline SearchResult run_search(const std::string& agent, DeploymentEnv& env, uint64_t seed = 1, int episodes = 0,
                               const std::string& config = "{}") {
  AgentRequest req;
  req.seed = seed;
  req.episodes = episodes;
  req.config_json = config;
  SearchResult r;
  Status s = run_agent(agent, env, req, &r);
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  return r;
}

/// The problem of a random LUT, or nullopt where it does not compile. Only an infeasible LUT
/// (every assignment has an infinite cost) may fail to compile: `brute_optimum`, the brute
/// force optimum of `lut`, must then be infinite.
inline std::optional<Problem> compile_feasible(const Lut& lut, double brute_optimum) {
  Problem p;
  if (compile_problem(lut, &p).is_ok()) return p;
  CHECK(brute_optimum == kInf);
  return std::nullopt;
}

}  // namespace lw::testing
