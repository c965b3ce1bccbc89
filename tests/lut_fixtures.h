// Small hand-made and random LUTs for env/agents tests, and an independent brute force.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "env/lut.h"
#include "env/rng.h"

namespace lw::testing {

inline Impl impl(const char* name, int in, int out, double ms, const char* library = "native") {
  Impl m;
  m.name = name;
  m.library = library;
  m.algorithm = "default";
  m.in_format = in;
  m.out_format = out;
  m.latency_ms.median = ms;
  m.memory_bytes = {1000, 0, 4000};
  return m;
}

inline LutLayer layer(const char* name, LayerKind kind, std::vector<int> inputs, std::vector<Impl> impls) {
  LutLayer l;
  l.name = name;
  l.kind = kind;
  l.inputs = std::move(inputs);
  l.impls = std::move(impls);
  return l;
}

/// Random DAG instance: `n` layers, up to `max_impls` impls each, `formats` formats, some impls
/// unsupported, some conversions missing (impossible), occasional fused pairs.
inline Lut random_dag_lut(uint64_t seed, int n, int max_impls, int formats) {
  Rng rng(seed);
  Lut lut;
  lut.model_name = "random";
  for (int f = 0; f < formats; ++f) lut.formats.push_back({f % 2 ? Layout::kNHWC : Layout::kNCHW, DType::kF32, 1 + f / 2});
  lut.layers.push_back(layer("input", LayerKind::kInput, {}, {impl("in", 0, 0, 0, "input")}));
  for (int i = 1; i < n; ++i) {
    std::vector<int> inputs = {i - 1};
    if (i > 1 && rng.uniform() < 0.4) inputs.push_back(rng.below(i - 1));
    std::vector<Impl> impls;
    const int k = 1 + rng.below(max_impls);
    for (int a = 0; a < k; ++a) {
      Impl m = impl("x", rng.below(formats), rng.below(formats), 0.1 + 10 * rng.uniform());
      m.memory_bytes = {int64_t(rng.below(5000)), int64_t(rng.below(3000)), int64_t(1000 + rng.below(4000))};
      if (rng.uniform() < 0.15) m.status = ImplStatus::kUnsupported;
      if (rng.uniform() < 0.1) m.fused_activation = true;
      if (rng.uniform() < 0.1) m.library = "fused";
      impls.push_back(m);
    }
    lut.layers.push_back(layer("l", inputs.size() > 1 ? LayerKind::kAdd : LayerKind::kRelu, inputs, impls));
  }
  auto add_conversions = [&](int p, int c) {
    for (int a = 0; a < formats; ++a)
      for (int b = 0; b < formats; ++b)
        if (a != b && rng.uniform() < 0.8) lut.conversions.push_back({p, c, a, b, -1, 0.05 + 5 * rng.uniform(), {"conv"}});
  };
  for (int c = 1; c < n; ++c)
    for (int p : lut.layers[c].inputs) add_conversions(p, c);
  add_conversions(n - 1, -1);
  return lut;
}

/// Latency of an assignment computed straight from the LUT contract (independent of env/cost.cc).
inline double lut_latency(const Lut& lut, const std::vector<int>& a) {
  const double inf = std::numeric_limits<double>::infinity();
  auto conv = [&](int p, int c, int from, int to) {
    double best = inf;
    for (const auto& r : lut.conversions)
      if (r.producer == p && r.consumer == c && r.from_format == from && r.to_format == to) best = std::min(best, r.chain_ms);
    return best;
  };
  double total = 0;
  for (size_t i = 0; i < lut.layers.size(); ++i) {
    const Impl& C = lut.layers[i].impls[a[i]];
    if (!C.ok()) return inf;
    total += C.latency_ms.median;
    const std::vector<int>& ins = lut.layers[i].inputs;
    for (int p : ins) {
      const Impl& P = lut.layers[p].impls[a[p]];
      // An absorbed add reads its earlier input (the residual) like any consumer.
      const bool residual = lut.layers[i].kind == LayerKind::kAdd && ins.size() == 2 && ins[0] != ins[1] &&
                            p == std::min(ins[0], ins[1]);
      if (P.fused_activation || (C.library == "fused" && !residual)) {
        if (!(P.fused_activation && C.library == "fused" && P.out_format == C.in_format)) return inf;
      } else if (P.out_format != C.in_format) {
        total += conv(p, int(i), P.out_format, C.in_format);
      }
    }
  }
  const Impl& L = lut.layers.back().impls[a.back()];
  if (L.fused_activation) return inf;
  if (L.out_format != lut.output_format) total += conv(int(lut.layers.size()) - 1, -1, L.out_format, lut.output_format);
  return total;
}

/// Minimum latency over every assignment (with the assignment), by enumeration.
inline double brute_force(const Lut& lut, std::vector<int>* best = nullptr) {
  const int n = int(lut.layers.size());
  std::vector<int> a(n, 0);
  double opt = std::numeric_limits<double>::infinity();
  for (;;) {
    const double l = lut_latency(lut, a);
    if (l < opt) {
      opt = l;
      if (best) *best = a;
    }
    int i = 0;
    while (i < n && ++a[i] == int(lut.layers[i].impls.size())) a[i++] = 0;
    if (i == n) break;
  }
  return opt;
}

/// QS-DNN Fig. 2: the layer-wise fastest first choice forces a costly conversion later, so the
/// greedy searches (DS and DS+) end in a local minimum while the optimum takes the slower start.
inline Lut fig2_lut() {
  Lut lut;
  lut.model_name = "fig2";
  lut.formats = {{Layout::kNCHW, DType::kF32, 1}, {Layout::kNHWC, DType::kF32, 1}};
  lut.layers.push_back(layer("input", LayerKind::kInput, {}, {impl("in", 0, 0, 0, "input")}));
  lut.layers.push_back(layer("conv1", LayerKind::kConv2d, {0},
                             {impl("conv1_nchw", 0, 0, 1.0), impl("conv1_nhwc", 0, 1, 2.0)}));
  lut.layers.push_back(layer("conv2", LayerKind::kConv2d, {1},
                             {impl("conv2_nchw", 0, 0, 9.0), impl("conv2_nhwc", 1, 1, 1.0)}));
  lut.layers.push_back(layer("conv3", LayerKind::kConv2d, {2},
                             {impl("conv3_nchw", 0, 0, 9.0), impl("conv3_nhwc", 1, 0, 1.0)}));
  lut.conversions = {{1, 2, 0, 1, 10.0, 10.0, {"nchw->nhwc"}}, {1, 2, 1, 0, 10.0, 10.0, {"nhwc->nchw"}},
                     {2, 3, 0, 1, 10.0, 10.0, {"nchw->nhwc"}}, {2, 3, 1, 0, 10.0, 10.0, {"nhwc->nchw"}}};
  lut.output_format = 0;
  return lut;
}

/// A chain of `gadgets` two-step traps: in each, the fastest first conv (NCHW) is cheap for the
/// next conv too, and only the third conv reveals the cost (a 5 ms NCHW impl or a 3 ms
/// conversion), while the slower NHWC start costs 3.5 ms over the gadget instead of 6. DS+
/// and a one-step lookahead both walk into every trap; two distractor impls per layer keep
/// random search from stumbling on the optimum (about 1 / 18 per gadget).
inline Lut trap_chain_lut(int gadgets) {
  Lut lut;
  lut.model_name = "trap_chain";
  lut.formats = {{Layout::kNCHW, DType::kF32, 1}, {Layout::kNHWC, DType::kF32, 1}};
  lut.layers.push_back(layer("input", LayerKind::kInput, {}, {impl("in", 0, 0, 0, "input")}));
  for (int g = 0; g < gadgets; ++g) {
    const int a = int(lut.layers.size());
    lut.layers.push_back(layer("a", LayerKind::kConv2d, {a - 1},
                               {impl("a_nchw", 0, 0, 1.0), impl("a_nhwc", 0, 1, 1.5), impl("a_slow", 0, 0, 3.0)}));
    lut.layers.push_back(layer("b", LayerKind::kConv2d, {a},
                               {impl("b_nchw", 0, 0, 1.0), impl("b_nhwc", 1, 1, 1.0), impl("b_slow", 0, 0, 4.0)}));
    lut.layers.push_back(layer("c", LayerKind::kConv2d, {a + 1},
                               {impl("c_nchw", 0, 0, 5.0), impl("c_nhwc", 1, 0, 1.0), impl("c_slow", 0, 0, 6.0)}));
    for (int e = 0; e < 2; ++e)
      for (int f = 0; f < 2; ++f) lut.conversions.push_back({a + e, a + e + 1, f, 1 - f, 3.0, 3.0, {"convert"}});
  }
  lut.output_format = 0;
  return lut;
}

}  // namespace lw::testing
