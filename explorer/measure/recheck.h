/// \file
/// The recheck of `bench --recheck` and `replay --recheck`: a deployment's implementations
/// timed again, alone, now, with the profile's protocol, into a copy of its LUT; the same cost
/// model on that copy predicts the deployment again. Predicted vs rechecked is the machine's
/// drift since profiling (a VM's vCPU speed, other tenants), rechecked vs measured what the
/// cost model misses.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "env/lut.h"
#include "env/profiler.h"
#include "libs/exec/executor.h"

namespace lw {

/// `base` with the preparations switched off that the LUT's own protocol did not use (weights
/// aged, inputs written in halves): a LUT from before them was timed without, and a recheck
/// with them would read as drift. The computing before each run, the share of the shared
/// cache from which weights are aged, and the run counts (warm-up, runs, cv, caps, median_ci)
/// are the LUT's, whatever the command's protocol.
ProfileOptions recheck_options(const ProfileOptions& base, const Lut& lut);

/// The (layer, implementation) pairs an executor's layer steps run, conversions left out.
std::vector<std::pair<int, std::string>> layer_impls_of(const Executor& ex);

/// Slice `part` of `parts` of `which` (in order, sizes differing by at most one).
std::vector<std::pair<int, std::string>> slice_of(const std::vector<std::pair<int, std::string>>& which, int part,
                                                  int parts);

}  // namespace lw
