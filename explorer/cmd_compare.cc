// `layerwise compare`: every agent on the same LUT -> QS-DNN Table III.
#include <cstdio>
#include <sstream>

#include "agents/dqn.h"
#include "explorer/cli.h"
#include "explorer/search_io.h"
#include "libs/ir/network_json.h"

namespace lw::cli {
namespace {

// Table III order: learned, graph searches, greedy, random; the exact solvers last.
const char* const kCompareOrder[] = {"qlearning", "dqn", "dijkstra", "astar", "greedy_penalty", "greedy", "random", "exact", "ilp"};

int run_compare(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "force"}, {"lut", "episodes", "dqn-episodes", "seed", "out"});
  if (!args.has("lut")) throw UsageError("--lut is required");
  if (!args.has("out")) throw UsageError("--out is required (CSV path)");
  register_dqn_agent();
  Lut lut;
  Problem problem;
  load_problem(args.get("lut"), &lut, &problem, args.flag("force"));
  std::vector<SearchResult> rows;
  double optimum = kInf;
  for (const char* name : kCompareOrder) {
    if (!find_agent(name)) continue;
    AgentRequest req;
    req.seed = uint64_t(args.get_int("seed", 1));
    // DQN steps cost ~1000x a tabular step, so it has its own budget.
    req.episodes = std::string(name) == "dqn" ? args.get_int("dqn-episodes", 0) : args.get_int("episodes", 0);
    req.progress = progress_line(name, args.flag("quiet"));
    DeploymentEnv env(problem);
    SearchResult r;
    ok_or_throw(run_agent(name, env, req, &r));
    if (req.progress) req.progress(1.0);
    if (r.proven_optimal) optimum = std::min(optimum, r.best_latency_ms);
    rows.push_back(std::move(r));
  }
  std::ostringstream csv;
  csv << "algorithm,latency_ms,gap_to_optimum_pct,states_considered,wall_ms,episodes\n";
  std::printf("Table III (LUT %s, model %s, optimum %.4f ms)\n", args.get("lut").c_str(), lut.model_name.c_str(), optimum);
  std::printf("%-15s %12s %8s %14s %11s %9s\n", "algorithm", "latency_ms", "gap_%", "states", "wall_ms", "episodes");
  for (const auto& r : rows) {
    const double gap = 100.0 * (r.best_latency_ms - optimum) / optimum;
    char line[256];
    std::snprintf(line, sizeof line, "%s,%.6f,%.4f,%lld,%.3f,%d\n", r.agent.c_str(), r.best_latency_ms, gap,
                  (long long)r.states_considered, r.wall_ms, r.episodes);
    csv << line;
    std::printf("%-15s %12.4f %8.3f %14lld %11.2f %9d\n", r.agent.c_str(), r.best_latency_ms, gap,
                (long long)r.states_considered, r.wall_ms, r.episodes);
  }
  ok_or_throw(write_file_atomic(args.get("out"), csv.str()));
  std::printf("wrote %s\n", args.get("out").c_str());
  return 0;
}

Registrar reg({"compare", "run every search algorithm on one LUT (QS-DNN Table III)",
               "usage: layerwise compare --lut lut.json [--episodes N] [--dqn-episodes N] [--seed S] --out compare.csv [--quiet] [--force]\n\n"
               "Runs qlearning, dqn, dijkstra, astar, greedy_penalty, greedy, random, exact and ilp on the same\n"
               "LUT and writes algorithm,latency_ms,gap_to_optimum_pct,states_considered,wall_ms,episodes.\n"
               "--episodes applies to qlearning and random, --dqn-episodes to dqn (defaults: each agent's own).\n",
               run_compare});

}  // namespace
}  // namespace lw::cli
