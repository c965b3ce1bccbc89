// `layerwise sweep sweep.json`: a grid of experiments, on this machine or as Slurm job arrays.
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <map>

#include "explorer/cli/cli.h"
#include "explorer/commands/model_arg.h"
#include "explorer/pipeline/runner.h"
#include "explorer/pipeline/sweep_exec.h"

namespace lw::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* const kExecutors[] = {"local", "slurm"};

// A cell is checked as `layerwise run` would read it, model included (loaded once per name).
CellChecker cell_checker() {
  auto vocab = std::make_shared<ConfigVocabulary>(config_vocabulary());
  auto models = std::make_shared<std::map<std::string, std::string>>();  // model -> load error
  return [vocab, models](const json& cell, const std::string& origin, json* resolved) -> std::string {
    ExperimentConfig cfg;
    Status s = parse_config(cell.dump(), origin, *vocab, &cfg);
    if (!s.is_ok()) return s.message();
    if (!models->count(cfg.model)) {
      try {
        load_model(cfg.model);
        (*models)[cfg.model] = "";
      } catch (const UsageError& e) {
        (*models)[cfg.model] = e.what();
      }
    }
    if (!(*models)[cfg.model].empty()) return origin + ": /model: " + (*models)[cfg.model];
    *resolved = resolved_config(cfg);
    return "";
  };
}

SweepPlan plan_from(const std::string& arg, bool for_collect) {
  SweepPlan plan;
  if (for_collect && fs::is_directory(arg)) {
    ok_or_throw(load_manifest(arg, &plan));
    return plan;
  }
  ok_or_throw(load_sweep(arg, cell_checker(), &plan));
  if (!for_collect) return plan;
  SweepPlan on_disk;
  if (!load_manifest(plan.cfg.output_dir, &on_disk).is_ok())
    throw UsageError(plan.cfg.output_dir + "/manifest.json: missing: run the sweep first");
  return on_disk;
}

// A task or an executor that ran and failed (StatusCode::kFailed) exits 1 with its reason;
// anything else that is not ok is the user's error (exit 2).
int exit_code(const Status& s) {
  if (s.is_ok()) return 0;
  if (s.code() != StatusCode::kFailed) throw UsageError(s.message());
  std::fprintf(stderr, "layerwise sweep: %s\n", s.message().c_str());
  return 1;
}

int run_task(const std::vector<std::string>& pos) {
  if (pos.size() != 3 || (pos[0] != "cell" && pos[0] != "profile"))
    throw UsageError("usage: layerwise sweep --task cell|profile <sweep dir> <index>");
  int index = std::atoi(pos[2].c_str());
  return exit_code(pos[0] == "cell" ? run_cell_task(pos[1], index) : run_profile_task(pos[1], index));
}

int run_sweep(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "collect", "resubmit-failed", "no-wait", "dry-run", "task"},
            {"executor", "jobs", "timeout", "poll"});
  if (args.flag("task")) return run_task(args.positional());
  if (args.positional().size() != 1) throw UsageError("usage: layerwise sweep <sweep.json> [options] (see --help)");
  std::string executor = args.get("executor", "local");
  if (std::find(std::begin(kExecutors), std::end(kExecutors), executor) == std::end(kExecutors))
    throw UsageError("--executor: unknown executor '" + executor + "' (known: local, slurm)");
  SweepPlan plan = plan_from(args.positional()[0], args.flag("collect"));
  if (args.flag("collect")) {
    int missing = 0;
    ok_or_throw(collect_sweep(plan, &missing));
    return missing ? 1 : 0;
  }
  std::vector<std::string> notes;
  ok_or_throw(write_sweep(plan, &notes));
  for (const auto& n : notes) std::fprintf(stderr, "sweep: %s\n", n.c_str());
  std::printf("sweep %s: %zu cells, %zu LUTs, in %s\n", plan.cfg.name.c_str(), plan.cells.size(), plan.luts.size(),
              plan.cfg.output_dir.c_str());
  if (args.flag("dry-run")) return 0;
  SweepRunOptions o;
  o.quiet = args.flag("quiet");
  o.resubmit_failed = args.flag("resubmit-failed");
  o.wait = !args.flag("no-wait");
  o.jobs = args.get_int("jobs", 0);
  o.timeout_s = args.get_double("timeout", 0);
  o.poll_s = args.get_double("poll", kDefaultSlurmPollSeconds);
  if (o.jobs < 0 || o.timeout_s < 0 || o.poll_s <= 0) throw UsageError("--jobs, --timeout and --poll must be positive");
  return exit_code(executor == "slurm" ? run_sweep_slurm(plan, o) : run_sweep_local(plan, o));
}

Registrar reg({"sweep", "run a grid of experiments, on this machine or as Slurm job arrays; merge their results",
               "usage: layerwise sweep <sweep.json> [--executor local|slurm] [--jobs N] [--resubmit-failed]\n"
               "                       [--no-wait] [--timeout S] [--poll S] [--dry-run] [--quiet]\n"
               "       layerwise sweep <sweep.json | sweep dir> --collect\n\n"
               "Expands the sweep config (a base experiment config and axes, see README.md \"Sweeps\") into\n"
               "one experiment config per cell, <output_dir>/cells/<id>/config.json (each runnable alone\n"
               "with `layerwise run`), and <output_dir>/manifest.json, then runs them:\n"
               "  local   a pool of --jobs processes here (default local.jobs, 1);\n"
               "  slurm   job arrays through sbatch, one partition per device kind; every LUT is profiled\n"
               "          once (an array the cells wait for with --dependency=afterok) and shared.\n"
               "Finished cells are never run again; interrupted ones are; failed ones with\n"
               "--resubmit-failed. --no-wait submits and returns; --timeout stops waiting (jobs go on).\n"
               "--collect writes <output_dir>/sweep.csv (cell keys + search and replay metrics),\n"
               "plots/ (gap vs states per agent, chosen deployments per model) and missing.txt (cells not\n"
               "done, and why); exit 1 while any is missing. Exit 2: a bad sweep config (file + JSON path).\n"
               "Internal: --task cell|profile <dir> <index> runs one cell or LUT (what the executors start).\n",
               run_sweep});

}  // namespace
}  // namespace lw::cli
