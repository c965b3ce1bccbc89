/// \file
/// The executor: runs a network (BatchNorm folded) under a per-layer assignment of
/// implementations. plan() creates every primitive (weights packed here, never in run),
/// inserts the cheapest conversion chain on every edge whose producer format differs from
/// the consumer's, places all activations in ONE arena by liveness (plus in-place
/// elementwise steps, and concat inputs written by their producers straight into the
/// concat's output: PlanOptions::concat_in_place) and binds pointers; run() then only runs
/// primitives.
/// The replay of a chosen deployment and the on-device accuracy checks go through here.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libs/exec/conversion_graph.h"
#include "libs/exec/memory_plan.h"
#include "libs/ir/network.h"
#include "libs/ops/registry.h"

namespace lw {

struct PlanOptions {
  /// Where implementations and conversions come from (required).
  const Registry* registry = nullptr;
  /// Quantisation of every layer's output (index = layer); needed only where a tensor
  /// becomes int8 (calibration chooses them, not the executor).
  std::vector<QuantParams> quant;
  /// Edge costs for the conversion graph; default estimated_conversion_cost.
  ConversionCostFn conversion_cost;
  /// Let elementwise steps write over their input when it dies there.
  bool in_place = true;
  /// Let a concat's producers write straight into its output (NHWC f32, the native concat,
  /// where the producer's primitive writes a pixel stride), so it copies only the others.
  /// Needs in_place.
  bool concat_in_place = true;
  /// Time every step in run() (steady_clock around each run(); off the hot path otherwise).
  bool time_steps = false;
  /// The format the network output is delivered in before run() copies it out (NCHW f32,
  /// on some thread set). Unset: the last layer's thread set. A plan from a LUT sets the
  /// LUT's output format, whose conversion the cost model charges.
  std::optional<Format> output_format;
  /// Keep every layer's output alive after run() (no buffer reuse, no in-place) so that
  /// layer_output() can read it: calibration and debugging, not deployment.
  bool keep_outputs = false;
};

struct MemoryReport {
  size_t arena_bytes = 0;             // activations, with liveness reuse and in-place steps
  size_t naive_activation_bytes = 0;  // activations if every tensor had its own buffer
  size_t workspace_bytes = 0;         // one shared workspace: max over steps
  size_t weight_bytes = 0;            // packed weights + biases of every primitive
  size_t peak_bytes() const { return arena_bytes + workspace_bytes + weight_bytes; }
  /// Heap growth measured (glibc mallinfo2) across plan(): what was really allocated.
  size_t measured_heap_bytes = 0;
};

struct ExecStep {
  std::string name;        // implementation or conversion name
  int layer = -1;          // layer index, or the consumer layer for a conversion
  bool conversion = false;
  double last_ms = 0;      // with PlanOptions::time_steps
  /// With step timing: the step's jobs whose cpu1 half the caller ran, the worker late
  /// (caller_ran_alone_count in libs/ops/thread_pool.h; our native worker only).
  int last_alone = 0;
  /// A 2-thread step after which its pool's cpu1 workers are parked because the next
  /// 2-thread step (cyclically) runs on another pool (ThreadPoolId; see release_pool).
  bool parks_pool = false;
  /// A conversion: the layer whose output it converts (its tensor's shape); -1 otherwise.
  int source = -1;
  /// The pool whose cpu1 thread runs its second half (ThreadPoolId); -1: the caller alone.
  /// A conversion takes the pool of the step that reads it.
  int pool = -1;
  /// A concat: its inputs whose producers wrote them into its output (copied: the others).
  int inputs_in_place = 0;
};

class Executor {
 public:
  /// `assignment[i]` is layer i's implementation (entry 0, the input, is ignored).
  static Status plan(const Network& net, const std::vector<ImplDesc>& assignment, const PlanOptions& options,
                     std::unique_ptr<Executor>* out);
  ~Executor();

  /// input: NCHW f32 of the network's input shape. output: NCHW f32, (re)allocated only
  /// when it does not already have the right shape.
  Status run(const Tensor& input, Tensor* output);

  /// Layer i's output of the last run() as NCHW f32 (int8 dequantised); needs
  /// PlanOptions::keep_outputs. A fused activation reads its producer's output.
  Status layer_output(int layer, Tensor* out) const;
  const MemoryReport& memory() const { return memory_; }
  const std::vector<ExecStep>& steps() const { return info_; }
  /// Switches per-step timing on or off between runs (a benchmark alternates plain runs,
  /// the figure it reports, with timed ones, which split that figure into steps).
  void set_time_steps(bool on);

 /// Opaque plan state (values, steps, arena).
  struct Impl;

 private:
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  MemoryReport memory_;
  std::vector<ExecStep> info_;
};

}  // namespace lw
