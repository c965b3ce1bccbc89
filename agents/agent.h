/// \file
/// One interface for every search algorithm (QS-DNN phase 2 and its baselines): an agent
/// gets the DeploymentEnv (and through it the compiled cost tables) and a request (seed,
/// episodes, its own JSON config), and returns a SearchResult. Agents register under the
/// same string the JSON config uses: qlearning, dqn, random, greedy, greedy_penalty,
/// dijkstra, astar, exact, ilp.
///
/// "States considered" is counted the same way everywhere: the number of times the agent
/// costed a partial deployment extended by one (layer, implementation) choice: one env step
/// for episodic agents (replayed updates are not counted), one scored candidate for greedy
/// searches, one generated successor for Dijkstra / A*, one cost-table entry combined during
/// a reduction or branch for the exact solver, one binary variable of the model for the ILP.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "env/env.h"
#include "libs/core/status.h"

namespace lw {

struct Solution {
  std::vector<int> assignment;  // impl index within each layer
  double latency_ms = kInf;     // predicted (LUT) latency
  int64_t memory_bytes = 0;     // predicted peak memory (env/cost.h model)
};

struct CurvePoint {
  int episode = 0;
  double return_ms = 0;        // undiscounted episode return (minus the latency, plus any memory term)
  double best_latency_ms = 0;  // best latency found so far
  double epsilon = 0;          // exploration rate of the episode (-1 where not applicable)
  int64_t states = 0;          // states considered up to the end of this episode (cumulative)
  double greedy_ms = -1;       // latency of the learned policy's greedy rollout (epsilon 0) after this episode; -1 = not evaluated
};

struct SearchResult {
  std::string agent;
  std::vector<int> best;  // best assignment found
  double best_latency_ms = kInf;
  int64_t best_memory_bytes = 0;
  std::vector<Solution> solutions;  // every distinct assignment found, in discovery order
  std::vector<CurvePoint> curve;    // episodic agents only
  int64_t states_considered = 0;
  double wall_ms = 0;
  double cpu_ms = 0;             // process CPU time of the search (the machine may be shared: wall is inflated)
  int episodes = 0;              // 0 for non-episodic agents
  bool proven_optimal = false;   // exact solvers (and a certified Q-learning run): optimality certified
  bool greedy_answer = false;    // best is the learned policy's greedy rollout, not the best episode seen
  double lower_bound_ms = 0;     // exact solvers: proven lower bound on the optimum
  std::string config_json = "{}";  // the fully resolved agent config
  std::string note;                // one line for reports (e.g. how optimality was proved)
};

struct AgentRequest {
  uint64_t seed = 0;
  int episodes = 0;                  // 0 = the agent's default
  std::string config_json = "{}";    // agent-specific keys; unknown keys are rejected
  bool record_solutions = true;      // keep every distinct assignment (off in benchmarks)
  /// Optional progress report: fraction done in [0, 1].
  std::function<void(double fraction)> progress;
};

using AgentFn = Status (*)(DeploymentEnv& env, const AgentRequest& request, SearchResult* out);

struct AgentEntry {
  const char* name;
  const char* summary;
  AgentFn run;
};

/// Built-in (torch-free) agents plus those added with register_agent (the DQN agent lives in
/// its own library so that only what needs LibTorch links it).
const std::vector<AgentEntry>& agents();
void register_agent(const AgentEntry& entry);
const AgentEntry* find_agent(const std::string& name);
std::string agent_names();

/// Runs an agent by name; fills wall_ms, the agent name and every solution's memory.
Status run_agent(const std::string& name, DeploymentEnv& env, const AgentRequest& request, SearchResult* out);

/// Records distinct assignments and the best one; memory is filled in by finish().
class SolutionLog {
 public:
  explicit SolutionLog(bool keep_all) : keep_all_(keep_all) {}
  /// Returns true when `latency_ms` improves on the best so far.
  bool add(const std::vector<int>& assignment, double latency_ms);
  double best_latency() const { return best_latency_; }
  void finish(const Problem& p, SearchResult* out);

 private:
  struct Hash {
    size_t operator()(const std::vector<int>& v) const;
  };
  bool keep_all_;
  std::unordered_map<std::vector<int>, size_t, Hash> index_;
  std::vector<Solution> solutions_;
  std::vector<int> best_;
  double best_latency_ = kInf;
};

/// Process CPU time in ms.
double process_cpu_ms();

/// Wall-clock stopwatch in ms.
class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  double ms() const { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace lw
