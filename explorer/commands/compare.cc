// `layerwise compare`: every agent on the same LUT, several seeds each -> QS-DNN Table III with
// mean and worst gap to the certified optimum, states considered until within 0.5 %, wall
// and CPU time; learning curves as CSV and gnuplot PNG/SVG beside the table.
#include <cstdio>
#include <sstream>

#include "libs/core/files.h"
#include "agents/dqn.h"
#include "libs/ir/network_json.h"
#include "explorer/cli/cli.h"
#include "explorer/pipeline/compare_report.h"
#include "explorer/pipeline/search_io.h"

namespace lw::cli {
namespace {

// Table III order: learned, graph searches, greedy, random; the exact solvers last. The
// paper-faithful Q-learning runs beside the default one.
struct CompareEntry {
  const char* label;
  const char* agent;
  const char* config;
  bool seeded;  // the agent uses its seed (others run once)
};
const CompareEntry kCompareOrder[] = {
    {"qlearning", "qlearning", "{}", true},
    {"qlearning(qs-dnn)", "qlearning", R"({"variant":"qs-dnn"})", true},
    {"dqn", "dqn", "{}", true},
    {"dijkstra", "dijkstra", "{}", false},
    {"astar", "astar", "{}", false},
    {"greedy_penalty", "greedy_penalty", "{}", false},
    {"greedy", "greedy", "{}", false},
    {"random", "random", "{}", true},
    {"exact", "exact", "{}", false},
    {"ilp", "ilp", "{}", false},
};

bool wanted(const std::string& list, const std::string& label) {
  if (list.empty()) return true;
  std::stringstream s(list);
  for (std::string x; std::getline(s, x, ',');)
    if (x == label) return true;
  return false;
}

int run_compare(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "force", "no-plot"}, {"lut", "episodes", "dqn-episodes", "seed", "seeds", "agents", "out"});
  if (!args.has("lut")) throw UsageError("--lut is required");
  if (!args.has("out")) throw UsageError("--out is required (CSV path)");
  const int seeds = args.get_int("seeds", 3);
  if (seeds < 1) throw UsageError("--seeds must be at least 1");
  register_dqn_agent();
  Lut lut;
  Problem problem;
  ok_or_throw(load_problem(args.get("lut"), &lut, &problem, args.flag("force")));
  std::vector<CompareRow> rows;
  for (const auto& e : kCompareOrder) {
    if (!find_agent(e.agent) || !wanted(args.get("agents"), e.label)) continue;
    CompareRow row;
    row.label = e.label;
    for (int k = 0; k < (e.seeded ? seeds : 1); ++k) {
      AgentRequest req;
      req.seed = uint64_t(args.get_int("seed", 1) + k);
      req.config_json = e.config;
      req.record_solutions = false;
      // DQN steps cost ~1000x a tabular step, so it has its own budget.
      req.episodes = std::string(e.agent) == "dqn" ? args.get_int("dqn-episodes", 0) : args.get_int("episodes", 0);
      req.progress = progress_line(row.label + " seed " + std::to_string(req.seed), args.flag("quiet"));
      DeploymentEnv env(problem);
      SearchResult r;
      ok_or_throw(run_agent(e.agent, env, req, &r));
      if (req.progress) req.progress(1.0);
      row.seeds.push_back(req.seed);
      row.runs.push_back(std::move(r));
    }
    rows.push_back(std::move(row));
  }
  double optimum = kInf;
  for (const auto& row : rows)
    for (const auto& r : row.runs)
      if (r.proven_optimal && r.agent != "qlearning") optimum = std::min(optimum, r.best_latency_ms);
  if (optimum == kInf)  // without exact/ilp in --agents the reference is the best found
    for (const auto& row : rows)
      for (const auto& r : row.runs) optimum = std::min(optimum, r.best_latency_ms);
  std::printf("Table III (LUT %s, model %s, optimum %.4f ms, %d seeds for seeded agents)\n", args.get("lut").c_str(),
              lut.model_name.c_str(), optimum, seeds);
  const std::string out = args.get("out");
  ok_or_throw(write_file_atomic(out, compare_table(rows, optimum, problem.n, true)));
  std::printf("%s", compare_table(rows, optimum, problem.n, false).c_str());
  const std::string stem = out.size() > 4 && out.substr(out.size() - 4) == ".csv" ? out.substr(0, out.size() - 4) : out;
  ok_or_throw(write_file_atomic(stem + "_curves.csv", curves_csv(rows, optimum)));
  std::printf("wrote %s and %s_curves.csv\n", out.c_str(), stem.c_str());
  if (!args.flag("no-plot")) {
    ok_or_throw(plot_curves(rows, stem + "_curves", lut.model_name));
    std::printf("wrote %s_curves.{png,svg}\n", stem.c_str());
  }
  return 0;
}

Registrar reg({"compare", "run every search algorithm on one LUT, several seeds (QS-DNN Table III)",
               "usage: layerwise compare --lut lut.json --out compare.csv [--seeds 3] [--seed 1] [--episodes N]\n"
               "                         [--dqn-episodes N] [--agents a,b,...] [--no-plot] [--quiet] [--force]\n\n"
               "Runs qlearning, qlearning(qs-dnn) (the paper's settings), dqn, dijkstra, astar, greedy_penalty,\n"
               "greedy, random, exact and ilp on the same LUT; the seeded agents (qlearning, dqn, random) run\n"
               "with seeds seed .. seed + seeds - 1. Writes per algorithm: mean and worst latency and gap to the\n"
               "certified optimum, states considered (mean) and until the reported answer is within 0.5 % of\n"
               "the optimum for good (worst seed; -1 = never), mean wall and CPU ms, episodes. Beside it:\n"
               "<out>_curves.csv (agent,seed,episode,states,best_latency_ms,greedy_ms,gap_pct) and\n"
               "<out>_curves.{png,svg} (gnuplot): the gap of each episodic agent's answer against states.\n"
               "--episodes applies to qlearning and random, --dqn-episodes to dqn (defaults: each agent's own).\n",
               run_compare});

}  // namespace
}  // namespace lw::cli
