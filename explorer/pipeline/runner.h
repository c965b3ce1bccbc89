/// \file
/// `layerwise run`: one experiment config drives profile → search → filter → pareto →
/// replay into results/<run-id>/ (explorer/pipeline/run_dir.h). Stages whose outputs are
/// already there and valid are skipped (the LUT is cached per model, device, libraries,
/// thread sets and protocol in results/luts/), and an interrupted run resumes in its own
/// directory.
#pragma once
#include <string>
#include <vector>

#include "env/profiler.h"
#include "explorer/measure/in_network.h"
#include "explorer/pipeline/config.h"

namespace lw {

struct RunOptions {
  bool quiet = false;   // no progress lines
  bool fresh = false;   // start a new run directory even if an unfinished one matches
  /// Profile anew even when the cached LUT matches (the replay found it stale: the device
  /// drifted); the new LUT replaces the cached one once complete, so an interrupted
  /// re-profile leaves it as it was (and resumes from its checkpoint when run again).
  bool reprofile = false;
};

/// Runs the experiment into *run_dir. A user error (a model that cannot be loaded, a LUT of
/// another model, bad agent hyperparameters, an infeasible memory budget) comes back as a
/// status naming `config_path` and the JSON path, before anything is measured.
Status run_experiment(const ExperimentConfig& config, const std::string& config_path, const RunOptions& o,
                      std::string* run_dir);

/// What the profile stage measures for `config` (libraries, thread sets, protocol); `layerwise
/// sweep` profiles each LUT of a grid once with it.
ProfileOptions profile_options(const ExperimentConfig& config);
/// What follows that profile (profile.in_network_rounds; rounds 0: nothing), for the run and
/// the sweep alike.
InNetworkOptions in_network_options(const ExperimentConfig& config);

/// The names the config may use: libraries of this build and registered agents.
ConfigVocabulary config_vocabulary();

}  // namespace lw
