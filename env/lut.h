/// \file
/// The lookup table (LUT): what the profiler measured on the device, and the only thing the
/// search sees of it. `layerwise profile` (or the synthetic generator) writes it; the
/// environment (env/cost.h, env/env.h) compiles it into flat cost tables for the agents.
/// JSON format "layerwise-lut/1" (see README "LUT"): model, device fingerprint, protocol,
/// formats, layers with their implementations, conversions between formats on every edge.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"
#include "libs/ops/descriptor.h"  // Format

namespace lw {

constexpr const char* kLutFormat = "layerwise-lut/1";

/// Implementation status, as the profiler recorded it: only kOk may ever be chosen.
enum class ImplStatus {
#define X(e, s) e,
#include "env/impl_status.inc"
#undef X
};
const char* to_string(ImplStatus s);

struct LatencyStats {
  double median = 0, min = 0, p90 = 0, cv = 0;
  int runs = 0;
  /// The mean of the runs, those over kInterruption x the median left out (0: not recorded, a
  /// LUT from before it). A network's latency is a sum of steps, and the median of a sum is
  /// close to the sum of the steps' means, not of their medians, when each step's time is
  /// skewed to the right: on a shared Zen 5 VM the steps' medians summed to 0.90-0.97 of the
  /// network's time, their means to 0.97-1.03 (results/reference/mean-cost/).
  double mean = 0;
  static constexpr double kInterruption = 3;

  /// The figure the cost model plans with: the mean where recorded, else the median.
  double cost_ms() const { return mean > 0 ? mean : median; }
  /// Every time figure times f (a speed correction, an in-network ratio).
  void scale(double f) { median *= f, min *= f, p90 *= f, mean *= f; }
};

struct MemoryBytes {
  int64_t weights = 0;    // packed weights of this implementation
  int64_t workspace = 0;  // scratch while the layer runs (im2col buffer, Winograd tiles)
  int64_t output = 0;     // the layer's output tensor in this implementation's out format
};

/// One way to run a layer: QS-DNN Table I {library, algorithm, dtype, layout in/out, core}.
struct Impl {
  std::string name;
  std::string library;    // "native", "openblas", "xnnpack", "torch", "fused", "input", ...
  std::string algorithm;  // "im2col", "winograd_2x2_3x3", "default", ...
  DType dtype = DType::kF32;
  int in_format = 0, out_format = 0;  // indices into Lut::formats
  int threads = 1;
  /// A conv impl that already applies the following activation (runtime fusion).
  bool fused_activation = false;
  ImplStatus status = ImplStatus::kOk;
  std::string reason;  // why not ok
  LatencyStats latency_ms;
  /// When latency_ms was timed inside network inferences (`lut refine`,
  /// explorer/measure/in_network.h): the figure the profiler timed alone, kept for reference.
  std::optional<LatencyStats> alone_ms;
  MemoryBytes memory_bytes;
  /// Streamed outputs (env/cost.h): the share of its output this implementation leaves in
  /// memory rather than in the caches (0 = all cached, 1 = as after non-temporal stores:
  /// oneDNN's f32 3x3 convs), measured by reading the output right after its timed runs.
  double output_in_memory = 0;
  /// What this implementation's run takes longer when its input starts in memory instead of
  /// the caches (ms, >= 0; measured for steps without weights: pools, activations, concat,
  /// adds; 0 when not measured).
  double input_in_memory_ms = 0;

  bool ok() const { return status == ImplStatus::kOk; }
  /// The activation-layer impl that stands for "already done by the fused producer".
  bool is_fused_consumer() const { return library == "fused"; }
};

struct LutLayer {
  std::string name;
  LayerKind kind = LayerKind::kInput;
  std::vector<int> inputs;  // producer layer indices (earlier layers)
  int depth = 0;            // longest path from the input
  std::vector<int64_t> out_shape;
  std::vector<Impl> impls;
};

/// Cost of feeding `consumer` from `producer` when the formats differ: the cheapest chain of
/// converters (all-pairs shortest path, computed by the profiler). consumer -1: network output.
struct Conversion {
  int producer = 0, consumer = 0;
  int from_format = 0, to_format = 0;
  double direct_ms = -1;  // cost of a single direct converter; -1 when there is none
  double chain_ms = 0;
  std::vector<std::string> chain;  // converter names along the chain
  /// What the chain's first converter takes longer when the producer's output starts in
  /// memory (ms, >= 0; streamed outputs, env/cost.h; 0 when not measured).
  double input_in_memory_ms = 0;
};

/// Measured cost of every direct converter on one tensor shape: the conversion graph's edge
/// weights. The executor rebuilds the profiler's chains from these, so a replay inserts
/// exactly the conversions the LUT charged.
struct ConverterCosts {
  std::vector<int64_t> shape;               // n, c, h, w
  std::vector<std::pair<std::string, double>> ms;  // converter name -> median ms
};

/// One hand-off matrix (RuntimeCosts): ms[from * kThreadPoolCount + to] (ThreadPoolId), measured
/// with 2-thread jobs of two busy items of item_us each.
struct HandoffMatrix {
  double item_us = 20;
  std::vector<double> ms;
};

/// What the executor adds to its steps on every run: copying the network input into its
/// arena and the output out of it (memcpy of each tensor, measured by the profiler; 0 in
/// LUTs from before they were measured). The cost model charges them with the output edge.
/// Also what a step pays when the step before it ran on another thread pool (issue 16 item
/// 3): the pool's worker must be woken on cpu1, or wait there for the previous pool's
/// spinning worker. A late worker costs a step more the longer the step (the caller takes its
/// share back, up to the worker's delay), so the profiler measures the matrix with items of
/// several lengths (handoffs, ascending item_us; one in LUTs from before, none in older ones:
/// the cost model then ignores hand-offs) and handoff() reads it at the step's length.
/// And how fast the device ran while it was profiled: speed_ms[threads - 1], the median of
/// env/speed_probe.h's probe on that thread set between layers (empty in LUTs from before
/// it; 0 for a set not profiled), against which a later measurement's drift is told; and
/// how far apart its two cores were: core_link_ns, the median round trip of a cache line
/// between them probed with the speed (env/speed_probe.h; 0: not probed).
/// And what a write on cpu0 pays per KiB of lines cpu1 holds (shared_write_us_per_kb, measured
/// by env/runtime_costs.h's probe; 0: not measured, none charged): a 1-thread step of a
/// 2-thread deployment writes over lines a 2-thread step left in cpu1's caches (env/cost.h);
/// and what a read on cpu0 pays per KiB of lines cpu1 wrote (shared_read_us_per_kb, the same
/// probe; 0: not measured): a step reads the half of its input that a step on the other thread
/// set wrote on the other core.
struct RuntimeCosts {
  double input_copy_ms = 0, output_copy_ms = 0;
  std::vector<HandoffMatrix> handoffs;
  std::vector<double> speed_ms;
  double core_link_ns = 0;
  double shared_write_us_per_kb = 0, shared_read_us_per_kb = 0;
  bool has_shared_lines() const { return shared_write_us_per_kb > 0 || shared_read_us_per_kb > 0; }
  bool measured() const { return input_copy_ms > 0 || output_copy_ms > 0; }
  bool has_handoffs() const { return !handoffs.empty(); }
  bool has_speed() const { return !speed_ms.empty(); }
  /// The hand-off into a step of `step_ms` on pool `to` after pool `from`: linear in the step
  /// between the two matrices whose items bracket it, the shortest's below it and the longest's
  /// above it (a late worker's delay levels off); 0 without hand-offs.
  double handoff(ThreadPoolId from, ThreadPoolId to, double step_ms) const;
};

struct Lut {
  std::string model_name, model_hash;
  std::string device_json = "{}";    // device fingerprint, opaque JSON object (compact text)
  std::string protocol_json = "{}";  // measurement protocol, opaque JSON object (compact text)
  std::vector<Format> formats;
  std::vector<LutLayer> layers;
  std::vector<Conversion> conversions;
  std::vector<ConverterCosts> converters;  // empty in synthetic LUTs
  int output_format = 0;  // the network output must be delivered in this format
  RuntimeCosts runtime;   // optional "runtime" object

  /// Number of implementations over all layers.
  int64_t impl_count() const;
};

/// Parses and validates a LUT. Errors are one line: "<origin>: <JSON pointer>: <reason>".
Status lut_from_json(const std::string& text, const std::string& origin, Lut* lut);
Status load_lut(const std::string& path, Lut* lut);
std::string lut_to_json(const Lut& lut);
/// Written atomically (temporary file + rename).
Status save_lut(const Lut& lut, const std::string& path);

/// FNV-1a hash of the network's topology and shapes (weights excluded), hex: what a LUT's
/// model_hash must equal for the LUT to describe the network.
std::string model_hash(const Network& net);

}  // namespace lw
