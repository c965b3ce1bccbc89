// `layerwise search`: runs one agent on a LUT; writes every distinct solution and the learning curve.
#include <cstdio>

#include "libs/core/files.h"
#include "agents/dqn.h"
#include "explorer/cli/cli.h"
#include "explorer/pipeline/search_io.h"
#include "libs/ir/network_json.h"

namespace lw::cli {
namespace {

std::string default_out(const std::string& model, const std::string& agent, uint64_t seed) {
  return "results/" + model + "__" + agent + "__" + std::to_string(seed) + "__" + time_now("%Y%m%d-%H%M%S", false);
}

int run_search(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "force"}, {"lut", "agent", "episodes", "seed", "out", "config"});
  if (!args.has("lut")) throw UsageError("--lut is required");
  register_dqn_agent();
  const std::string agent = args.get("agent", "qlearning");
  if (!find_agent(agent)) throw UsageError("unknown agent '" + agent + "' (known: " + agent_names() + ")");
  Lut lut;
  Problem problem;
  ok_or_throw(load_problem(args.get("lut"), &lut, &problem, args.flag("force")));
  AgentRequest req;
  req.seed = uint64_t(args.get_int("seed", 1));
  req.episodes = args.get_int("episodes", 0);
  req.config_json = config_arg(args.get("config"));
  req.progress = progress_line(agent, args.flag("quiet"));
  DeploymentEnv env(problem);
  SearchResult r;
  ok_or_throw(run_agent(agent, env, req, &r));
  if (req.progress) req.progress(1.0);
  std::string dir = args.get("out");
  if (dir.empty())
    ok_or_throw(make_new_dir(default_out(lut.model_name, agent, req.seed), &dir));  // never an earlier run's
  else
    ok_or_throw(make_dirs(dir));
  ok_or_throw(write_solutions_csv(dir + "/solutions.csv", lut, r));
  ok_or_throw(write_curve_csv(dir + "/learning_curve.csv", r));
  const std::string resolved = "{\"lut\":\"" + args.get("lut") + "\",\"agent\":\"" + agent + "\",\"seed\":" +
                               std::to_string(req.seed) + ",\"agent_config\":" + r.config_json + "}\n";
  ok_or_throw(write_file_atomic(dir + "/config.json", resolved));
  std::printf("agent            %s\nmodel            %s\nbest latency     %.4f ms (LUT prediction)\n", agent.c_str(),
              lut.model_name.c_str(), r.best_latency_ms);
  std::printf("best memory      %.2f MiB (predicted peak)\ndistinct found   %zu\nstates considered %lld\n",
              r.best_memory_bytes / 1048576.0, r.solutions.size(), (long long)r.states_considered);
  std::printf("episodes         %d\nwall time        %.1f ms\n", r.episodes, r.wall_ms);
  if (!r.note.empty()) std::printf("note             %s\n", r.note.c_str());
  std::printf("wrote            %s/{solutions.csv,learning_curve.csv,config.json}\n", dir.c_str());
  return 0;
}

Registrar reg({"search", "search the per-layer deployment with one agent on a LUT",
               "usage: layerwise search --lut lut.json [--agent NAME] [--episodes N] [--seed S] [--out DIR]\n"
               "                        [--config JSON|file] [--quiet] [--force]\n\n"
               "Agents: qlearning (default), dqn, random, greedy, greedy_penalty, dijkstra, astar, exact, ilp.\n"
               "Writes DIR/solutions.csv (latency_ms,memory_bytes,assignment: every distinct deployment found),\n"
               "DIR/learning_curve.csv (episode,return_ms,best_latency_ms,epsilon,greedy_ms) and DIR/config.json.\n"
               "DIR defaults to results/<model>__<agent>__<seed>__<time>. --config sets agent keys, e.g.\n"
               "'{\"alpha\":0.1}' or, for ilp, '{\"sweep_points\":10,\"memory_model\":\"whole_network\"}'.\n",
               run_search});

}  // namespace
}  // namespace lw::cli
