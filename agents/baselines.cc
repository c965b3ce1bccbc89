// QS-DNN §VI-D baselines that walk the environment once per episode:
// random search (RS), greedy on layer latency (DS) and greedy with conversion penalties (DS+).
#include "agents/builtin.h"
#include "agents/config.h"
#include "env/rng.h"

namespace lw {
namespace {

constexpr int kDefaultRandomEpisodes = 1000;

struct RandomConfig {
  int episodes = kDefaultRandomEpisodes;  // random deployments drawn (uniform over allowed impls per layer)
};

}  // namespace

Status run_random(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  RandomConfig cfg;
  JsonReader r = agent_config("random", req.config_json);
  if (req.episodes > 0) cfg.episodes = req.episodes;
  r.integer("episodes", &cfg.episodes, 1, 1 << 30);
  LW_RETURN_IF_ERROR(r.finish());
  out->config_json = r.resolved().dump();
  Rng rng(req.seed);
  SolutionLog log(req.record_solutions);
  std::vector<int> allowed(env.problem().max_actions);
  const int64_t steps_before = env.total_steps();
  for (int ep = 0; ep < cfg.episodes; ++ep) {
    env.reset(req.seed);
    double ret = 0;
    while (!env.done() && !env.dead_end()) {
      int k = 0;
      for (int i = 0; i < env.num_actions(); ++i)
        if (env.allowed(i)) allowed[k++] = i;
      ret += env.step(allowed[rng.below(k)]).reward;
    }
    if (env.done()) log.add(env.assignment(), env.latency_ms());  // (a dead end: over the memory limit)
    out->curve.push_back({ep, ret, log.best_latency(), 1.0, env.total_steps() - steps_before});
    if (req.progress && (ep & 63) == 0) req.progress(double(ep) / cfg.episodes);
  }
  out->episodes = cfg.episodes;
  out->states_considered = env.total_steps() - steps_before;
  log.finish(env.problem(), out);
  return Status::ok();
}

namespace {

// One greedy pass: at each layer the allowed impl of least cost; DS scores the layer's own
// latency, DS+ adds the conversion penalties from the producers already chosen.
Status greedy(DeploymentEnv& env, const AgentRequest& req, bool with_penalty, SearchResult* out) {
  JsonReader r = agent_config(with_penalty ? "greedy_penalty" : "greedy", req.config_json);
  LW_RETURN_IF_ERROR(r.finish());
  out->config_json = r.resolved().dump();
  const Problem& p = env.problem();
  env.reset(req.seed);
  int64_t scored = 0;
  while (!env.done()) {
    if (env.dead_end()) return failed(std::string(with_penalty ? "greedy_penalty" : "greedy") + ": dead end at layer " +
                                      std::to_string(env.layer()) + " under the peak-memory limit");
    int best = -1;
    double best_cost = kInf;
    for (int a = 0; a < env.num_actions(); ++a) {
      if (!env.allowed(a)) continue;
      ++scored;
      const double cost = with_penalty ? env.step_cost(a) : p.impl_ms[p.offset[env.layer()] + a];
      if (best < 0 || cost < best_cost) best = a, best_cost = cost;
    }
    env.step(best);
  }
  SolutionLog log(true);
  log.add(env.assignment(), env.latency_ms());
  out->states_considered = scored;
  log.finish(p, out);
  return Status::ok();
}

}  // namespace

Status run_greedy(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) { return greedy(env, req, false, out); }
Status run_greedy_penalty(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  return greedy(env, req, true, out);
}

}  // namespace lw
