/// \file
/// What the LUT's per-layer figures miss and the executor adds on every run (issue 16 item
/// 3): copying the network input into the executor's arena and the output out of it. The
/// profiler measures them into Lut::runtime; `bench` measures them for a LUT that lacks
/// them; the cost model charges them with the output edge (env/cost.h), a constant of the
/// model that changes no choice but every prediction.
#pragma once
#include <string>

#include "env/lut.h"
#include "env/measure.h"
#include "libs/ir/network.h"
#include "libs/ops/thread_pool.h"

namespace lw {

/// Times a memcpy of the network's input (NCHW f32) and of its last layer's output (f32)
/// under `protocol` (warm caches: a deployed network copies the same buffers every run).
Status measure_runtime_costs(const Network& net, const Protocol& protocol, RuntimeCosts* out);

/// Measures RuntimeCosts::handoff_ms between every two pools that registered a job
/// (libs/ops/thread_pool.h) and the caller: the median time of a 2-thread job of two busy
/// items (`item_us` each) on pool `to` right after one on pool `from` (released as the
/// executor releases it), less the same job after one on `to` itself. Into a 2-thread pool
/// from the caller, the pool was released before a 1-thread item: its worker sleeps, as it
/// does after the executor parked it. Rounds interleave the pairs. Records `item_us` as
/// RuntimeCosts::handoff_item_us. Fails when the machine has one CPU for the thread sets (no
/// hand-off exists there).
Status measure_handoff_costs(int rounds, double item_us, RuntimeCosts* out);
/// The item a hand-off is measured with: the network's typical 2-thread step, the time-weighted
/// median over its layers of the fastest usable 2-thread implementation (half the network's
/// 2-thread time lies in shorter steps; a plain median is an activation's few us), within
/// [kHandoffItemUs, kHandoffMaxItemUs]; kHandoffItemUs when the LUT has no 2-thread
/// implementation. Why: where the worker of `to` starts late, the caller of our pool and of
/// XNNPACK's takes the worker's share back, so what a hand-off costs grows with the step and
/// levels off at the worker's delay. On a Zen 5 VM (results/reference/handoff-item/) the OpenMP -> native
/// hand-off read 0.02 / 0.06 / 0.15 ms with 20 / 60 / 150 us items, and in MobileNetV2's
/// 2-thread networks such hand-offs cost 0.04 ms before steps under 0.03 ms and 0.07-0.14 ms
/// before longer ones. Over the 2-thread hand-offs of the five bench models' deployments, 20 us
/// items charged a quarter of what they cost in the networks.
double handoff_item_us(const Lut& lut);
constexpr double kHandoffItemUs = 20;
constexpr double kHandoffMaxItemUs = 400;  // > libgomp's spin at GOMP_SPINCOUNT=10000 (~0.35 ms here)
/// The hand-off matrix as text (rows: from, columns: to, ms), or a line saying the LUT has none
/// (then the cost model charges none).
std::string handoffs_table(const RuntimeCosts& rc);
constexpr int kHandoffRounds = 41;

}  // namespace lw
