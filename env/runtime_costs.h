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

/// Measures RuntimeCosts::handoffs, a matrix per item of kHandoffItemsUs, between every two
/// pools that registered a job (libs/ops/thread_pool.h) and the caller: the median time of a
/// 2-thread job of two busy items on pool `to` right after one on pool `from` (released as the
/// executor releases it), less the same job after one on `to` itself. Into a 2-thread pool
/// from the caller, the pool was released before a 1-thread item: its worker sleeps, as it
/// does after the executor parked it. Rounds interleave the items and the pairs. Fails when
/// the machine has one CPU for the thread sets (no hand-off exists there).
Status measure_handoff_costs(int rounds, RuntimeCosts* out);
/// The items, from a conversion's few us to past libgomp's spin at GOMP_SPINCOUNT=10000 (~0.35
/// ms here), where a late worker's delay levels off. Why several: our pool's caller takes a
/// late worker's share back, so a hand-off costs about min(delay, step):
/// on a Zen 5 VM (results/reference/handoff-item/) the OpenMP -> native hand-off read
/// 0.02 / 0.06 / 0.15 ms with 20 / 60 / 150 us items, and in MobileNetV2's 2-thread networks
/// such hand-offs cost 0.04 ms before steps under 0.03 ms and 0.07-0.14 ms before longer ones.
/// So where the worker's delay is long, one item (the network's typical step, until
/// 2026-11-26) charges a shorter step too much and a longer one too little.
constexpr double kHandoffItemsUs[] = {20, 50, 120, 400};
/// Measures RuntimeCosts::shared_write_us_per_kb and shared_read_us_per_kb, per KiB: what cpu0's
/// write of kSharedLinesBytes pays after cpu1 read them (its caches then hold every line, which
/// the write must take back), over the same write after cpu0's own caches dropped them (the
/// state a LUT's step timing starts its output in); and what cpu0's read of them pays after
/// cpu1 wrote them, over the read of what cpu0 wrote itself (a step's inputs as the profile
/// leaves them, Protocol::inputs_from_writers). Medians of `rounds`, the states alternating.
/// Why: a 1-thread step of a 2-thread deployment writes an output that a 2-thread step read
/// in the previous inference, or over an input a 2-thread step wrote, and reads the half of
/// its input that cpu1 wrote; a 2-thread step reads the half of a 1-thread step's output that
/// its worker on cpu1 did not write. On a Zen 5 VM with the vCPUs ~500 ns apart such writes
/// cost ~0.12 us per KiB (~0.01 near), and GoogLeNet's 36 such steps in its opt-fp32
/// deployment ran 0.71-0.85 ms against 0.27 ms in the LUT (results/reference/t1-output-lines/);
/// such reads ~0.02 us per KiB (results/reference/pool-inputs/; 0.03 at 256 KiB in t1-in-t2/). Fails when the machine has one
/// CPU for the thread sets.
Status measure_shared_lines(int rounds, RuntimeCosts* out);
constexpr int64_t kSharedLinesBytes = 1 << 20;  // a typical activation: GoogLeNet's are 0.05-3 MiB
constexpr int kSharedLinesRounds = 41;
/// The hand-off matrices as text (per item; rows: from, columns: to, ms), or a line saying the
/// LUT has none (then the cost model charges none).
std::string handoffs_table(const RuntimeCosts& rc);
constexpr int kHandoffRounds = 41;

}  // namespace lw
