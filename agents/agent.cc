#include "agents/agent.h"

#include "libs/core/hash.h"

#include <algorithm>
#include <ctime>

#include "agents/builtin.h"

namespace lw {

static std::vector<AgentEntry>& registry() {
  static std::vector<AgentEntry> r = {
      {"qlearning", "tabular Q-learning with replay (QS-DNN)", run_qlearning},
      {"random", "random search (RS)", run_random},
      {"greedy", "greedy on layer latency only (DS)", run_greedy},
      {"greedy_penalty", "greedy on latency + conversion penalties (DS+)", run_greedy_penalty},
      {"dijkstra", "Dijkstra on (layer, implementation) states (Dj)", run_dijkstra},
      {"astar", "A* with a two-steps-ahead heuristic", run_astar},
      {"exact", "certified latency optimum on the DAG (PBQP reductions + branch and bound)", run_exact},
      {"ilp", "TASO ILP with COIN-OR CBC: latency/memory budgets and Pareto sweep", run_ilp},
  };
  return r;
}

const std::vector<AgentEntry>& agents() { return registry(); }

void register_agent(const AgentEntry& entry) {
  auto& r = registry();
  auto it = std::find_if(r.begin(), r.end(), [&](const AgentEntry& e) { return std::string(e.name) == entry.name; });
  if (it == r.end()) r.push_back(entry);
  else *it = entry;
}

const AgentEntry* find_agent(const std::string& name) {
  for (const auto& e : registry())
    if (name == e.name) return &e;
  return nullptr;
}

std::string agent_names() {
  std::string s;
  for (const auto& e : registry()) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

Status run_agent(const std::string& name, DeploymentEnv& env, const AgentRequest& request, SearchResult* out) {
  const AgentEntry* e = find_agent(name);
  if (!e) return {StatusCode::kNotFound, "unknown agent '" + name + "' (known: " + agent_names() + ")"};
  *out = SearchResult{};
  out->agent = name;
  Stopwatch clock;
  const double cpu0 = process_cpu_ms();
  LW_RETURN_IF_ERROR(e->run(env, request, out));
  out->wall_ms = clock.ms();
  out->cpu_ms = process_cpu_ms() - cpu0;
  out->agent = name;
  return Status::ok();
}

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return 1e3 * double(ts.tv_sec) + 1e-6 * double(ts.tv_nsec);
}

size_t SolutionLog::Hash::operator()(const std::vector<int>& v) const {
  return size_t(fnv1a(v.data(), v.size() * sizeof(int)));
}

bool SolutionLog::add(const std::vector<int>& assignment, double latency_ms) {
  if (keep_all_ && !index_.count(assignment)) {
    index_.emplace(assignment, solutions_.size());
    solutions_.push_back({assignment, latency_ms, 0});
  }
  if (latency_ms < best_latency_) {
    best_latency_ = latency_ms;
    best_ = assignment;
    return true;
  }
  return false;
}

void SolutionLog::finish(const Problem& p, SearchResult* out) {
  if (!best_.empty() && (out->best.empty() || best_latency_ <= out->best_latency_ms)) {
    out->best = best_;
    out->best_latency_ms = best_latency_;
  }
  if (!out->best.empty()) out->best_memory_bytes = predict_memory_bytes(p, out->best);
  for (auto& s : solutions_) s.memory_bytes = predict_memory_bytes(p, s.assignment);
  out->solutions = std::move(solutions_);
  if (out->solutions.empty() && !out->best.empty())
    out->solutions.push_back({out->best, out->best_latency_ms, out->best_memory_bytes});
}

}  // namespace lw
