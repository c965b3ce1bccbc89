/// \file
/// A deployment of a (network, LUT) pair as a bundle (env/bundle.h): what `layerwise export`
/// and the `export` stage of `layerwise run` write.
#pragma once
#include <string>
#include <vector>

#include "env/bundle.h"
#include "env/lut.h"

namespace lw {

/// Fills every field but label, prediction and measured: the network, `names` (one per LUT
/// layer), `quant` (calibrated, per layer), the LUT's converter costs for this network's
/// tensors, the executor's steps (planned here with `registry`), the LUT's device and the
/// ISA the implementations and this build need.
Status bundle_from_deployment(const Network& net, const Lut& lut, const std::vector<std::string>& names,
                              const std::vector<QuantParams>& quant, const Registry& registry, Bundle* out);

}  // namespace lw
