#include "libs/exec/conversion_graph.h"

namespace lw {

double estimated_conversion_cost(const ConversionDesc& d, const Shape& shape) {
  double in = double(shape.elements()) * dtype_bytes(d.from.dtype), out = double(shape.elements()) * dtype_bytes(d.to.dtype);
  if (d.from.layout != d.to.layout) return 2 * (in + out);
  if (d.from.dtype != d.to.dtype) return in + out;
  return 1;
}

ConversionGraph::ConversionGraph(const Registry& registry, const Shape& shape, const ConversionCostFn& cost)
    : nodes_(all_formats()) {
  const int n = int(nodes_.size());
  std::vector<double> w(size_t(n) * n, kNoPath);  // direct edges
  dist_.assign(size_t(n) * n, kNoPath);
  next_.assign(size_t(n) * n, -1);
  cross_.assign(size_t(n) * n, -1);
  for (const ConversionEntry& e : registry.conversions()) {
    int a = index(e.desc.from), b = index(e.desc.to);
    if (a >= 0 && b >= 0 && a != b) w[a * n + b] = std::min(w[a * n + b], cost(e.desc, shape));
  }
  auto same = [&](int i, int j) { return nodes_[i].dtype == nodes_[j].dtype; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i == j || (same(i, j) && w[i * n + j] < kNoPath)) {
        dist_[i * n + j] = i == j ? 0 : w[i * n + j];
        next_[i * n + j] = j;
      }
  // Floyd–Warshall inside each dtype; strict '<' keeps the first path found on ties.
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (same(i, k) && same(k, j) && dist_[i * n + k] + dist_[k * n + j] < dist_[i * n + j]) {
          dist_[i * n + j] = dist_[i * n + k] + dist_[k * n + j];
          next_[i * n + j] = next_[i * n + k];
        }
  // Across dtypes: best single dtype-changing edge u -> v between two same-dtype legs.
  std::vector<double> cross(size_t(n) * n, kNoPath);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (same(i, j)) continue;
      for (int u = 0; u < n; ++u)
        for (int v = 0; v < n; ++v) {
          if (!same(i, u) || !same(v, j) || w[u * n + v] == kNoPath) continue;
          double c = dist_[i * n + u] + w[u * n + v] + dist_[v * n + j];
          if (c < cross[i * n + j]) {
            cross[i * n + j] = c;
            cross_[i * n + j] = u * n + v;
          }
        }
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!same(i, j)) dist_[i * n + j] = cross[i * n + j];
}

int ConversionGraph::index(const Format& f) const {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i] == f) return int(i);
  return -1;
}

double ConversionGraph::cost(const Format& a, const Format& b) const {
  int i = index(a), j = index(b);
  if (i < 0 || j < 0) return kNoPath;
  return dist_[i * nodes_.size() + j];
}

std::vector<ConversionDesc> ConversionGraph::chain(const Format& a, const Format& b) const {
  std::vector<ConversionDesc> out;
  const int n = int(nodes_.size());
  int i = index(a), j = index(b);
  if (i < 0 || j < 0 || dist_[i * n + j] == kNoPath) return out;
  auto walk = [&](int from, int to) {  // same-dtype leg
    while (from != to) {
      int k = next_[from * n + to];
      out.push_back({nodes_[from], nodes_[k]});
      from = k;
    }
  };
  if (nodes_[i].dtype == nodes_[j].dtype) {
    walk(i, j);
    return out;
  }
  int u = cross_[i * n + j] / n, v = cross_[i * n + j] % n;
  walk(i, u);
  out.push_back({nodes_[u], nodes_[v]});
  walk(v, j);
  return out;
}

}  // namespace lw
