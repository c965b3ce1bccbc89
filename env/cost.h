/// \file
/// The cost of a deployment, precomputed from a LUT into flat tables so the search loop
/// never allocates or looks anything up by name: per implementation latency and memory,
/// and for every DAG edge a dense [producer impl x consumer impl] conversion-cost table.
/// Every agent sees costs only through this (and through env/env.h on top of it).
///
/// Latency model (ONE model for every agent, solver, prediction and breakdown): the sum of the
/// chosen impls' median latency + the conversions the executor runs + the output edge (last
/// layer -> Lut::output_format, plus the executor's input and output copies, Lut::runtime).
/// The executor converts a producer's output once per target format and shares it among every consumer that reads that format (libs/exec/executor.cc),
/// so a conversion (producer, from, to) is charged once however many consumers need it, to the
/// first consumer in layer order (where the executor inserts it). Edge cost: 0 when
/// P.out_format == C.in_format, else the chain cost of (producer, from, to), else +inf; the
/// LUT's records for one producer agree (a chain depends on the producer's tensor only); where
/// hand-made records disagree the cheapest is taken. Runtime fusion: a fused producer
/// (fused_activation) may feed only a "fused" consumer and a "fused" consumer may follow only a
/// fused producer, in the same format; except on an absorbed add's residual edge (its earlier
/// input), which costs the conversion into the add's (= the absorbing conv's output) format
/// like any edge.
///
/// Hand-offs (Lut::runtime.handoffs): a layer whose step runs on another thread pool than
/// the step before it pays the measured hand-off between the two pools, read at the length of
/// the layer's step on its pool (the fastest measured impl there: one figure per layer and pool,
/// so the ILP's pool-to-pool transport stays linear). Layers run in LUT
/// order, so the step before layer t is layer t-1's, or, when t-1 is a fused pseudo-impl
/// (it runs nothing), its absorber's (walking back); layer 0 (the input copy) and the output
/// copy after the last layer run on the caller. A conversion runs on the pool of the step
/// that reads it (the executor lends it that pool; the network output's, on the last
/// layer's), so it is charged its chain alone and the hand-off stays the consumer's: the
/// conversion starts the consumer's pool a little earlier. A LUT without hand-offs charges none.
///
/// Shared lines (Lut::runtime.shared_write_us_per_kb and shared_read_us_per_kb, in a LUT with
/// hand-offs): where a 1-thread step and a 2-thread step of a 2-thread deployment meet, one core
/// touches cache lines the other holds, which the LUT's figures do not include (a step's inputs
/// are profiled as a step on its own thread set leaves them: Protocol::inputs_from_writers;
/// its output over lines no core holds privately). Each case charges half a tensor's bytes
/// (half: cpu1 ran half of the 2-thread step) at the measured rate:
/// (1) a 2-thread step (or its conversion, which runs on its pool) reads a caller step's
///     output: in the previous inference cpu1 read its half, which the caller's write must take
///     back (write rate), and cpu1 now reads the half the caller wrote (read rate). Charged
///     once per producer, to its first consumer on a pool with a cpu1 thread, like a
///     conversion (results/reference/t1-output-lines/, shared-write/).
/// (2) an activation that runs in place (the arena aliases it when its input dies with it) on
///     the caller, over the output of a step on cpu1, which wrote half of it: write rate,
///     charged to the activation.
/// (3) a caller step (or its conversion) reads the output of a step on cpu1, half of which
///     cpu1 wrote: read rate, once per producer, to its first consumer on the caller
///     (results/reference/pool-inputs/).
/// A fused pseudo-impl's output is its absorber's, written on the absorber's pool (walking
/// back, as for hand-offs). The executor reuses arena slots, so other lines than these are
/// shared too: a first-order model, which charged a quarter to a half of the caller steps'
/// excess on the Zen 5 VM's five bench models (results/reference/shared-write/).
///
/// Streamed outputs (Problem::has_streams: a LUT whose profile measured them,
/// Protocol::streamed_outputs): some implementations leave their output in memory, as
/// non-temporal stores do (oneDNN's f32 3x3 convs), where the profiler times every step with
/// its inputs read back into the caches. Every edge whose producer's step left a share s of its
/// output in memory charges s x what its reader pays for that: the consumer's
/// input_in_memory_ms times the edge's share of its input elements when it reads the format,
/// else the chain's first converter's (once per edge, as each reads it; a conversion shared by
/// consumers is charged on each edge). Steps with weights and fused pseudo-impls pay nothing
/// (the profiler does not time them so). A fused pseudo-impl's output is its absorber's
/// (walking back). The ILP carries s per layer as a column (results/reference/streamed-outputs/).
///
/// Concats: the executor lets a concat's producers write straight into its output where
/// their primitives take a pixel stride (PlanOptions::concat_in_place); the model charges
/// the concat's measured copy and its producers' own outputs all the same, so it predicts
/// such deployments a little slow and large (GoogLeNet's nine concats, 0.14 ms of 17.2 at
/// 1 thread on the Zen 4 VM). Which producers write in place depends on the library that
/// runs a fused activation's conv, which a fused pseudo-impl does not name: not pairwise.
///
/// Memory model (predict_memory_bytes): an executor that keeps every weight resident, one
/// scratch buffer for the largest workspace, and an ideal liveness-based activation pool:
///   memory = sum(weights) + max(workspace) + max over schedule steps i of
///            sum(output bytes of layers j <= i still needed at step i, i.e. j == i or a
///                consumer of j runs at or after i).
/// Layers run in LUT (topological) order. Temporary buffers of conversions are not counted
/// (the conversion writes into the consumer's input buffer). The ILP uses the linear models
/// of memory_model.inc instead (see linear_memory_bytes).
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "env/lut.h"
#include "libs/core/status.h"

namespace lw {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class MemoryModel {
#define X(e, s) e,
#include "env/memory_model.inc"
#undef X
};
const char* to_string(MemoryModel m);
std::optional<MemoryModel> parse_memory_model(const std::string& s);

/// QS-DNN Table I fields of one implementation, as small integer ids (for observations).
struct ImplFields {
  int16_t library = 0, algorithm = 0;  // ids into Problem::libraries / algorithms
  int16_t dtype = 0, in_layout = 0, out_layout = 0, threads_id = 0;
  int16_t in_format = 0, out_format = 0;
  bool fused_producer = false, fused_consumer = false;
};

/// A LUT compiled for search. Impls are addressed by layer and index within the layer; the
/// flat index is offset[layer] + index.
struct Problem {
  std::string model_name;
  int n = 0;                    // layers
  std::vector<int> offset;      // n + 1 entries
  std::vector<double> impl_ms;  // +inf when not usable
  std::vector<uint8_t> usable;  // status ok and part of at least one finite assignment (arc consistent)
  std::vector<int64_t> weights, workspace, output;  // bytes, per flat impl
  std::vector<ImplFields> fields;

  struct Edge {
    int producer = 0, consumer = 0;
    int64_t table = 0;  // edge_ms[table + a_p * actions(consumer) + a_c]
    /// The edge brings an add's earlier operand: a conv absorbing the add (a "fused"
    /// consumer) reads it like any consumer, converted into its format.
    bool residual = false;
  };
  std::vector<Edge> edges;   // grouped by consumer, in layer order
  std::vector<int> in_begin;  // edges into layer i: [in_begin[i], in_begin[i + 1])
  std::vector<double> edge_ms;
  std::vector<double> out_ms;  // per impl of the last layer: delivering Lut::output_format + Lut::runtime copies
  /// Chain cost per (producer, from format, to format): conv_ms[(layer * F + from) * F + to],
  /// F = n_formats; 0 on the diagonal, +inf where no chain exists.
  std::vector<double> conv_ms;
  std::vector<int> prev_out;           // per edge: the previous edge with the same producer, -1 if first
  std::vector<int> out_begin, out_edge;  // edges out of layer j: out_edge[out_begin[j] .. out_begin[j + 1])
  std::vector<int> last_use;   // last layer that reads layer i's output (i itself if none)

  std::vector<int> kind, depth;  // per layer: LayerKind as int, depth from the LUT
  int max_depth = 0, max_actions = 0;
  std::vector<std::string> libraries, algorithms;
  std::vector<int> thread_values;
  int n_formats = 0;
  /// Per flat impl: the ThreadPoolId its step runs on, kNoStep for a fused pseudo-impl.
  std::vector<int8_t> pool;
  /// Per layer t, the hand-off into its step on pool `to` after pool `from` (>= 0), at
  /// (t * kThreadPoolCount + from) * kThreadPoolCount + to; empty: none charged.
  std::vector<double> handoff;
  static constexpr int8_t kNoStep = -1;

  /// Per flat impl: half its output bytes at Lut::runtime.shared_write_us_per_kb and at
  /// shared_read_us_per_kb, ms (shared lines, cases 1-3); empty: none charged.
  std::vector<double> shared_write, shared_read;
  /// Per layer: an activation the executor may run in place (shared writes, case 2).
  std::vector<uint8_t> in_place;

  /// Streamed outputs (a LUT that measured them; empty: none charged): per flat impl the share
  /// of its output it leaves in memory (Impl::output_in_memory) and what its run takes longer
  /// with its input there (Impl::input_in_memory_ms); per (producer, from, to), laid out as
  /// conv_ms, the chain's first converter's (Conversion::input_in_memory_ms); per edge, the
  /// producer's share of the consumer's input elements.
  std::vector<double> out_memory, in_memory, conv_in_memory, in_share;

  bool has_handoffs() const { return !handoff.empty(); }
  bool has_streams() const { return !out_memory.empty(); }
  bool has_shared_lines() const { return !shared_write.empty(); }
  /// Whether pool `q` has a thread on cpu1 (a step on it, not the caller's or no step).
  static bool on_cpu1(int q) { return q != kNoStep && q != int(ThreadPoolId::kCaller); }
  double handoff_ms(int layer, int from_pool, int to_pool) const {
    return handoff.empty() ? 0.0 : handoff[(size_t(layer) * kThreadPoolCount + from_pool) * kThreadPoolCount + to_pool];
  }

  int actions(int layer) const { return offset[layer + 1] - offset[layer]; }
  double edge_cost(const Edge& e, int a_p, int a_c) const {
    return edge_ms[e.table + int64_t(a_p) * actions(e.consumer) + a_c];
  }
  double conv(int layer, int from, int to) const { return conv_ms[(int64_t(layer) * n_formats + from) * n_formats + to]; }
  int fanout(int layer) const { return out_begin[layer + 1] - out_begin[layer]; }
};

/// Builds the tables. Fails (naming the layer) when no assignment of finite latency exists.
Status compile_problem(const Lut& lut, Problem* out);

/// Conversions (and hand-offs) charged at layer t for impl b (incoming edges, + the output
/// edge at the last layer), given assign[j] for every layer j < t: an edge pays its chain unless an earlier
/// consumer of the same producer (or an earlier input of t itself) already needed that
/// target format. The incremental form of predict_latency_ms: every agent's step cost, the
/// bounds and the replay's per-layer breakdown use it, so they all sum to the same total.
double conversion_in_ms(const Problem& p, const int* assign, int t, int b);
/// The pool of the last step run up to and including layer t (a fused pseudo-impl walks
/// back to its absorber; the caller's pool before any step).
int exit_pool(const Problem& p, const int* assign, int t);
/// The hand-offs charged at layer t for impl b given assign[j], j < t: into b's pool from the
/// step before it, and at the last layer from b's step to the caller's output copy. Part of
/// conversion_in_ms.
double handoff_in_ms(const Problem& p, const int* assign, int t, int b);
/// The shared lines charged at layer t for impl b given assign[j], j < t (the three cases
/// above). Part of conversion_in_ms.
double shared_lines_in_ms(const Problem& p, const int* assign, int t, int b);
/// The streamed-output charge at layer t for impl b given assign[j], j < t (see above). Part
/// of conversion_in_ms.
double streamed_in_ms(const Problem& p, const int* assign, int t, int b);
/// The share of layer j's output that the step which wrote it left in memory (a fused
/// pseudo-impl's output is its absorber's, walking back).
double written_in_memory(const Problem& p, const int* assign, int j);
/// What impl b of edge e's consumer pays per unit of streamed share when the producer runs
/// impl a_p: its own extra (times the edge's input share) when it reads the producer's format,
/// else the first converter's of the chain; 0 on an impossible pair. `e` is an element of
/// p.edges (its position gives the edge's input share).
double reader_in_memory_ms(const Problem& p, const Problem::Edge& e, int a_p, int b);
/// The streamed outputs charged to a complete assignment, summed (a part of predict_latency_ms:
/// `bench --steps` reports it apart, next to the steps it is charged for).
double streamed_ms(const Problem& p, const std::vector<int>& assignment);
/// The shared lines of a complete assignment, summed (a part of predict_latency_ms: `bench`
/// reports it apart, next to the caller steps it is mostly charged for).
double shared_lines_ms(const Problem& p, const std::vector<int>& assignment);
/// The layer kinds whose steps run in place on their input (shared writes, case 2).
bool runs_in_place(LayerKind kind);
/// THE latency of a complete assignment (`assignment[i]` is the impl index within layer i):
/// sum over t of impl_ms + conversion_in_ms. +inf when it uses an unusable impl or an
/// impossible edge.
double predict_latency_ms(const Problem& p, const std::vector<int>& assignment);
int64_t predict_memory_bytes(const Problem& p, const std::vector<int>& assignment);
int64_t linear_memory_bytes(const Problem& p, const std::vector<int>& assignment, MemoryModel model);
/// The per-layer memory term of the linear models: weights + workspace + output of one impl.
inline int64_t impl_memory_bytes(const Problem& p, int flat) {
  return p.weights[flat] + p.workspace[flat] + p.output[flat];
}

}  // namespace lw
