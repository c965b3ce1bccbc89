/// \file
/// The export stage (issue 15): a measured deployment written as a deployment bundle
/// (env/bundle.h) for the runtime API, with the LUT's prediction and what the explorer
/// measured (accuracy on the same images, latency) so that the application's figures can
/// be checked against them. Shared by `layerwise export` and `layerwise run`.
#pragma once
#include <string>
#include <vector>

#include "explorer/measure/evaluator.h"

namespace lw {

constexpr char kBundleFileName[] = "deployment.lwb";  // in a run directory

/// Writes `path` atomically. `measured` (may be null): the deployment's measurement (the
/// replay's, in a run), recorded in the bundle as the figures the runtime must reproduce.
Status export_bundle(const Evaluator& ev, const std::string& label, const std::vector<std::string>& names,
                     const Measurement* measured, const std::string& path);

}  // namespace lw
