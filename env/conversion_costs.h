/// \file
/// Conversion costs for the LUT (PBQP paper §3.1): every direct converter of the registry
/// (layout change, quantise / dequantise, thread-set change) is measured on the real tensor
/// of an edge; all-pairs shortest paths over that graph give the cheapest chain between any
/// producer format and any consumer format (absent from the LUT = impossible).
#pragma once
#include <string>
#include <vector>

#include "env/lut.h"
#include "env/measure.h"
#include "libs/ir/network.h"
#include "libs/ops/registry.h"

namespace lw {

/// Cheapest conversion chains between formats, from a matrix of direct costs.
class ChainTable {
 public:
  /// `direct[f * n + t]`: cost of the direct converter f -> t, +inf when there is none;
  /// `names` the converter names in the same positions.
  ChainTable(int n, std::vector<double> direct, std::vector<std::string> names);
  double direct(int from, int to) const { return direct_[from * n_ + to]; }
  double cost(int from, int to) const { return dist_[from * n_ + to]; }  // +inf: impossible
  std::vector<std::string> chain(int from, int to) const;                // converter names

 private:
  int n_;
  std::vector<double> direct_, dist_;
  std::vector<int> next_;
  std::vector<std::string> names_;
};

/// Fills lut->conversions for every edge whose producer and consumer impls differ in format,
/// and for the network output (consumer -1 → lut->output_format).
Status measure_conversions(const Network& net, const Registry& registry, const Protocol& protocol, Lut* lut);

}  // namespace lw
