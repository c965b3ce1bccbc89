// `layerwise run configs/X.json`: the whole pipeline from one experiment config.
#include <cstdio>

#include "explorer/cli/cli.h"
#include "explorer/pipeline/runner.h"

namespace lw::cli {
namespace {

int run_run(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "fresh", "reprofile"}, {});
  if (args.positional().size() != 1)
    throw UsageError("usage: layerwise run <config.json> [--quiet] [--fresh] [--reprofile]");
  const std::string path = args.positional()[0];
  ExperimentConfig cfg;
  ok_or_throw(load_config(path, config_vocabulary(), &cfg));
  RunOptions o;
  o.quiet = args.flag("quiet");
  o.fresh = args.flag("fresh");
  o.reprofile = args.flag("reprofile");
  std::string dir;
  ok_or_throw(run_experiment(cfg, path, o, &dir));
  std::printf("\nwrote %s/{config.json,summary.md,...}\n", dir.c_str());
  return 0;
}

Registrar reg({"run", "run a whole experiment from a JSON config (profile → search → filter → pareto → replay → export)",
               "usage: layerwise run <config.json> [--quiet] [--fresh] [--reprofile]\n\n"
               "Runs every stage of the experiment into <output_dir>/<model>__<agents>__<seeds>__<time>/:\n"
               "config.json (fully resolved), search/<agent>__s<seed>/, filtered.csv, pareto_*.{csv,png,svg},\n"
               "replay.json, deployment.lwb (the chosen deployment as a bundle for the runtime API and\n"
               "`layerwise infer --bundle`; \"export\": {\"bundle\": false} skips it), summary.md. The LUT\n"
               "is cached in <output_dir>/luts/ and reused while the model, device, libraries, thread sets\n"
               "and protocol are unchanged; --reprofile profiles anew all the same (when summary.md says the\n"
               "LUT has gone stale: the device drifted since profiling) and replaces the cached LUT once the\n"
               "profile is complete. An interrupted run resumes in its own directory (finished stages and\n"
               "searches are kept); --fresh starts a new one.\n"
               "Every config key is documented in README.md (\"Experiment configs\").\n",
               run_run});

}  // namespace
}  // namespace lw::cli
