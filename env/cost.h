/// \file
/// The cost of a deployment, precomputed from a LUT into flat tables so the search loop
/// never allocates or looks anything up by name: per implementation latency and memory,
/// and for every DAG edge a dense [producer impl x consumer impl] conversion-cost table.
/// Every agent sees costs only through this (and through env/env.h on top of it).
///
/// Latency model: sum of the chosen impls' median latency + the conversion cost of every
/// edge (p -> c) given the two chosen impls + the output edge (last layer -> Lut::output_format).
/// Edge cost: 0 when P.out_format == C.in_format, else the conversion record's chain_ms,
/// else +inf. Runtime fusion: a fused producer (fused_activation) may feed only a "fused"
/// consumer and a "fused" consumer may follow only a fused producer, in the same format;
/// except on an absorbed add's residual edge (its earlier input), which costs the
/// conversion into the add's (= the absorbing conv's output) format like any edge.
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
  };
  std::vector<Edge> edges;   // grouped by consumer, in layer order
  std::vector<int> in_begin;  // edges into layer i: [in_begin[i], in_begin[i + 1])
  std::vector<double> edge_ms;
  std::vector<double> out_ms;  // per impl of the last layer: cost of delivering Lut::output_format
  std::vector<int> last_use;   // last layer that reads layer i's output (i itself if none)

  std::vector<int> kind, depth;  // per layer: LayerKind as int, depth from the LUT
  int max_depth = 0, max_actions = 0;
  std::vector<std::string> libraries, algorithms;
  std::vector<int> thread_values;
  int n_formats = 0;

  int actions(int layer) const { return offset[layer + 1] - offset[layer]; }
  double edge_cost(const Edge& e, int a_p, int a_c) const {
    return edge_ms[e.table + int64_t(a_p) * actions(e.consumer) + a_c];
  }
};

/// Builds the tables. Fails (naming the layer) when no assignment of finite latency exists.
Status compile_problem(const Lut& lut, Problem* out);

/// `assignment[i]` is the impl index within layer i. +inf when it uses an unusable impl or
/// an impossible edge.
double predict_latency_ms(const Problem& p, const std::vector<int>& assignment);
/// The latency the executor will take: like predict_latency_ms, but a conversion that
/// several consumers need (same producer, same target format: a residual block's output
/// going to the next conv and to the add) is charged once, as the executor runs its chain
/// once. Not decomposable over edges, so the search objective stays the per-edge upper
/// bound above; predictions of a chosen deployment (replay, bench) use this.
double predict_executed_latency_ms(const Problem& p, const std::vector<int>& assignment);
int64_t predict_memory_bytes(const Problem& p, const std::vector<int>& assignment);
int64_t linear_memory_bytes(const Problem& p, const std::vector<int>& assignment, MemoryModel model);
/// The per-layer memory term of the linear models: weights + workspace + output of one impl.
inline int64_t impl_memory_bytes(const Problem& p, int flat) {
  return p.weights[flat] + p.workspace[flat] + p.output[flat];
}

}  // namespace lw
