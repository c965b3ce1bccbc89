/// \file
/// The conversion graph (PBQP paper §3.1): nodes are tensor formats (layout, dtype, thread
/// set), edges the direct conversions a backend registered, weighted by measured (or
/// estimated) cost for one tensor shape. All-pairs shortest paths (Floyd–Warshall) give
/// the cheapest chain from any producer format to any consumer format; the executor
/// inserts those chains and the environment charges their cost.
/// Unlike pure layout graphs, ours has lossy edges (quantise): a chain changes dtype at
/// most once, exactly when the two ends differ in dtype, so an f32 -> f32 chain never
/// detours through int8 however cheap its transposes are.
#pragma once
#include <functional>
#include <limits>
#include <vector>

#include "libs/ops/registry.h"

namespace lw {

/// Cost of one direct conversion of a tensor of `shape` (e.g. measured ms from the LUT).
/// Return +infinity to forbid an edge.
using ConversionCostFn = std::function<double(const ConversionDesc&, const Shape&)>;
constexpr double kNoPath = std::numeric_limits<double>::infinity();

/// Stand-in when nothing is measured: bytes read + written, transposes counted twice
/// (strided access), thread-set changes a nominal 1 so chains take no needless hops.
double estimated_conversion_cost(const ConversionDesc& d, const Shape& shape);

class ConversionGraph {
 public:
  ConversionGraph(const Registry& registry, const Shape& shape, const ConversionCostFn& cost);
  /// Cheapest chain cost; 0 for a == b; kNoPath when unreachable.
  double cost(const Format& a, const Format& b) const;
  /// The cheapest chain of direct conversions (empty for a == b or unreachable).
  std::vector<ConversionDesc> chain(const Format& a, const Format& b) const;

 private:
  std::vector<Format> nodes_;
  std::vector<double> dist_;  // nodes x nodes
  std::vector<int> next_;     // same dtype: first hop of the shortest path, -1 if none
  std::vector<int> cross_;    // different dtype: u * n + v of the dtype-changing edge u -> v
  int index(const Format& f) const;
};

}  // namespace lw
