// The "ilp" agent: one CBC solve of the deployment (agents/ilp.h), or a Pareto sweep of the
// memory budget when sweep_points > 1.
#include <string>
#include <vector>

#include "agents/builtin.h"
#include "agents/config.h"
#include "agents/ilp.h"

namespace lw {

namespace {
constexpr int kDefaultSweepPoints = 0;
struct IlpAgentConfig {
  std::string memory_model = "whole_network";  // whole_network (TASO eq. 13), layer_by_layer (eq. 15) or peak (liveness)
  double memory_budget_bytes = 0;              // minimum latency under this memory budget (0 = none)
  double latency_budget_ms = 0;                // > 0: minimum memory under this latency budget instead
  int sweep_points = kDefaultSweepPoints;      // > 1: Pareto sweep of the memory budget, one solve per point
  double time_limit_s = kDefaultIlpTimeLimitS; // CBC time limit per solve
};
}  // namespace

Status run_ilp(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  IlpAgentConfig cfg;
  JsonReader r = agent_config("ilp", req.config_json);
  r.text("memory_model", &cfg.memory_model);
  r.number("memory_budget_bytes", &cfg.memory_budget_bytes, 0, 1e18);
  r.number("latency_budget_ms", &cfg.latency_budget_ms, 0, 1e12);
  r.integer("sweep_points", &cfg.sweep_points, 0, 10000);
  r.number("time_limit_s", &cfg.time_limit_s, 0, 1e6);
  LW_RETURN_IF_ERROR(r.finish());
  out->config_json = r.resolved().dump();
  auto model = parse_memory_model(cfg.memory_model);
  if (!model) return parse_error("ilp config: /memory_model: expected whole_network, layer_by_layer or peak");
  const Problem& p = env.problem();
  std::vector<IlpSolution> sols;
  if (cfg.sweep_points > 1) {
    LW_RETURN_IF_ERROR(ilp_pareto(env, *model, cfg.sweep_points, &sols));
  } else {
    IlpOptions o;
    o.memory_model = *model;
    o.memory_budget_bytes = int64_t(cfg.memory_budget_bytes);
    o.latency_budget_ms = cfg.latency_budget_ms;
    o.objective = cfg.latency_budget_ms > 0 ? IlpObjective::kMemory : IlpObjective::kLatency;
    o.time_limit_s = cfg.time_limit_s;
    sols.emplace_back();
    LW_RETURN_IF_ERROR(solve_ilp(env, o, &sols.back()));
  }
  SolutionLog log(true);
  bool all_optimal = true;
  int64_t nodes = 0;
  for (const auto& s : sols) {
    log.add(s.assignment, s.latency_ms);
    out->states_considered += s.variables;
    all_optimal &= s.proven_optimal;
    nodes += s.nodes;
  }
  log.finish(p, out);
  const bool unconstrained = cfg.sweep_points <= 1 && cfg.memory_budget_bytes <= 0 && cfg.latency_budget_ms <= 0;
  out->proven_optimal = all_optimal && (unconstrained || cfg.sweep_points > 1);
  if (out->proven_optimal) out->lower_bound_ms = out->best_latency_ms;
  out->note = "CBC: " + std::to_string(sols.size()) + " solve(s), " + std::to_string(nodes) + " B&B nodes, " +
              (all_optimal ? "all proven optimal" : "NOT all proven optimal (time limit)");
  return Status::ok();
}

}  // namespace lw
