// `layerwise run configs/X.json`: the whole pipeline from one experiment config.
#include <cstdio>

#include "explorer/cli/cli.h"
#include "explorer/pipeline/runner.h"

namespace lw::cli {
namespace {

int run_run(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "fresh"}, {});
  if (args.positional().size() != 1) throw UsageError("usage: layerwise run <config.json> [--quiet] [--fresh]");
  const std::string path = args.positional()[0];
  ExperimentConfig cfg;
  ok_or_throw(load_config(path, config_vocabulary(), &cfg));
  RunOptions o;
  o.quiet = args.flag("quiet");
  o.fresh = args.flag("fresh");
  std::string dir;
  ok_or_throw(run_experiment(cfg, path, o, &dir));
  std::printf("\nwrote %s/{config.json,summary.md,...}\n", dir.c_str());
  return 0;
}

Registrar reg({"run", "run a whole experiment from a JSON config (profile → search → filter → pareto → replay → export)",
               "usage: layerwise run <config.json> [--quiet] [--fresh]\n\n"
               "Runs every stage of the experiment into <output_dir>/<model>__<agents>__<seeds>__<time>/:\n"
               "config.json (fully resolved), search/<agent>__s<seed>/, filtered.csv, pareto_*.{csv,png,svg},\n"
               "replay.json, deployment.lwb (the chosen deployment as a bundle for the runtime API and\n"
               "`layerwise infer --bundle`; \"export\": {\"bundle\": false} skips it), summary.md. The LUT\n"
               "is cached in <output_dir>/luts/ and reused while the model, device, libraries, thread sets\n"
               "and protocol are unchanged. An interrupted run resumes in its own directory (finished\n"
               "stages and searches are kept); --fresh starts a new one.\n"
               "Every config key is documented in README.md (\"Experiment configs\").\n",
               run_run});

}  // namespace
}  // namespace lw::cli
