/// \file
/// Options shared by `layerwise filter` and `layerwise replay` (the deployment measurements):
/// model + LUT loading, evaluation subset sizes, the data directory, and the progress line
/// with an ETA over a known number of deployments.
#pragma once
#include <memory>
#include <set>
#include <string>

#include "explorer/cli/cli.h"
#include "explorer/cli/progress.h"
#include "explorer/measure/evaluator.h"

namespace lw::cli {

/// Option names every measuring stage accepts (merge into the command's own).
std::set<std::string> eval_option_names();
/// Help text for them.
extern const char* const kEvalOptionsHelp;
/// --calibration-method (kDefaultCalibrationMethod when absent); an unknown name is a UsageError.
CalibrationMethod calibration_method_arg(const Args& args);

/// The network, its LUT and an Evaluator ready to measure deployments; throws UsageError
/// with one line (corrupt weights, a LUT of another model, a missing dataset).
struct StageSetup {
  Network net;
  Lut lut;
  std::unique_ptr<Evaluator> evaluator;
  std::unique_ptr<ProgressLine> line;
  int deployments = 1;  // how many deployments the progress line expects
};
/// Loads --model and --lut (cheap: call first, so argument errors come before any work).
void setup_stage(const Args& args, StageSetup* s);
/// Calibrates and loads the evaluation data. `timing_runs`: timed end-to-end runs per
/// measured deployment (after one warm-up).
void start_evaluator(const Args& args, int timing_runs, StageSetup* s);

}  // namespace lw::cli
