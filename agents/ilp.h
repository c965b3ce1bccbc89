/// \file
/// The TASO-style ILP (paper 000) solved with COIN-OR CBC: one binary per (layer, impl), one
/// continuous variable per (edge, producer format class, consumer format class) with the
/// edge's marginals tied to the binaries (exact for one-hot choices, and a tight relaxation),
/// and one per conversion (producer, from, to) >= every edge variable that needs it, which
/// carries its cost once (the executor shares it among consumers, env/cost.h). The env's
/// peak-memory limit (EnvOptions::max_memory_bytes) is a row of every solve. Objectives: minimum latency under a memory budget, minimum
/// memory under a latency budget; sweeping the memory budget gives a Pareto front. Memory is
/// one of the linear models of env/memory_model.inc (TASO eq. 13 or eq. 15), not the
/// liveness peak of env/cost.h, which is not linear in the choices.
#pragma once
#include <cstdint>
#include <vector>

#include "env/env.h"

namespace lw {

enum class IlpObjective { kLatency, kMemory };

constexpr double kDefaultIlpTimeLimitS = 60.0;

struct IlpOptions {
  IlpObjective objective = IlpObjective::kLatency;
  MemoryModel memory_model = MemoryModel::kWholeNetwork;
  int64_t memory_budget_bytes = 0;  // latency objective: memory <= budget (0 = none)
  double latency_budget_ms = 0;     // memory objective: latency <= budget (0 = none)
  double time_limit_s = kDefaultIlpTimeLimitS;
};

struct IlpSolution {
  std::vector<int> assignment;
  double latency_ms = kInf;        // predicted latency of the assignment (env/cost.h)
  int64_t memory_bytes = 0;        // memory under the ILP's linear model
  int64_t budget_bytes = 0;        // the memory budget of this solve (0 = none)
  bool proven_optimal = false;
  int64_t variables = 0, nodes = 0;
};

/// Fails with kNotFound when the budget admits no deployment.
Status solve_ilp(const DeploymentEnv& env, const IlpOptions& options, IlpSolution* out);

/// Minimum-latency solutions for `points` memory budgets evenly spaced from the smallest
/// achievable memory to the memory of the latency optimum (both ends included).
Status ilp_pareto(const DeploymentEnv& env, MemoryModel model, int points, std::vector<IlpSolution>* front);

}  // namespace lw
