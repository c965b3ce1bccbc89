/// \file
/// Seeded synthetic LUTs with the topology of any zoo model and plausible (invented, not
/// measured) costs: several libraries and algorithms per conv (some unsupported or failed),
/// NCHW/NHWC, f32/int8, 1 or 2 threads, conversion costs proportional to tensor size and
/// runtime-fused conv+activation variants. They let the environment and the agents be built
/// and tested before real LUTs exist; the JSON says "device": {"synthetic": true}.
#pragma once
#include <cstdint>
#include <string>

#include "env/lut.h"
#include "libs/core/status.h"
#include "libs/ir/network.h"
#include "libs/zoo/zoo.h"

namespace lw {

struct SyntheticLutOptions {
  uint64_t seed = 1;
  /// Spread of the multiplicative log-normal noise on every latency.
  double noise_sigma = 0.15;
  /// Fraction of applicable implementations marked "failed" (exercises the mask).
  double failed_fraction = 0.03;
  ZooOptions zoo;
};

/// LUT for a network (BatchNorm already folded; shapes inferred).
Status synthetic_lut(const Network& net, const SyntheticLutOptions& options, Lut* out);
/// LUT for a zoo model by name (built, BatchNorm folded).
Status synthetic_zoo_lut(const std::string& model, const SyntheticLutOptions& options, Lut* out);

}  // namespace lw
