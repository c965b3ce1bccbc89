/// \file
/// What the LUT's per-layer figures miss and the executor adds on every run (issue 16 item
/// 3): copying the network input into the executor's arena and the output out of it. The
/// profiler measures them into Lut::runtime; `bench` measures them for a LUT that lacks
/// them; the cost model charges them with the output edge (env/cost.h), a constant of the
/// model that changes no choice but every prediction.
#pragma once
#include "env/lut.h"
#include "env/measure.h"
#include "libs/ir/network.h"

namespace lw {

/// Times a memcpy of the network's input (NCHW f32) and of its last layer's output (f32)
/// under `protocol` (warm caches: a deployed network copies the same buffers every run).
Status measure_runtime_costs(const Network& net, const Protocol& protocol, RuntimeCosts* out);

}  // namespace lw
