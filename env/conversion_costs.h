/// \file
/// Conversion costs for the LUT (PBQP paper §3.1): every direct converter of the registry
/// (layout change, quantise / dequantise, thread-set change) is measured on the real tensor
/// of an edge; the executor's conversion graph (libs/exec/conversion_graph.h) turns those
/// into the cheapest chain between any producer format and any consumer format, so the LUT
/// charges exactly the chains the executor will insert (absent from the LUT = impossible).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "env/lut.h"
#include "env/measure.h"
#include "libs/exec/conversion_graph.h"
#include "libs/ir/network.h"
#include "libs/ops/registry.h"

namespace lw {

/// Edge weights for the executor's conversion graph from the LUT's measured converters
/// (+inf for a converter or shape the LUT did not measure).
ConversionCostFn lut_conversion_cost(const Lut& lut);

/// Fills lut->conversions for every edge whose producer and consumer impls differ in format,
/// and for the network output (consumer -1 → lut->output_format). `before_each_shape`
/// (optional) is called before the converters of each tensor shape are timed: the profiler
/// probes the cores' distance there (a far spell inside the stage, env/profiler_cores.cc).
Status measure_conversions(const Network& net, const Registry& registry, const Protocol& protocol, Lut* lut,
                           const std::function<void()>& before_each_shape = nullptr);

}  // namespace lw
