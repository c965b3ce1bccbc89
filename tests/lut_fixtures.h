// Small hand-made and random LUTs for env/agents tests, and an independent brute force.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <tuple>
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
      // (one draw per statement: the order of a call's arguments is the compiler's, and the
      // sanitizer build drew other DAGs than the plain one)
      const int in_format = rng.below(formats);
      const int out_format = rng.below(formats);
      Impl m = impl("x", in_format, out_format, 0.1 + 10 * rng.uniform());
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

/// Random DAG with much fan-out, as the profiler writes it: every layer reads 1 to 3 earlier
/// layers (so producers feed up to several consumers, often in the same format) and a
/// producer's chain costs are the same for all its consumers (a chain depends on its tensor).
inline Lut fanout_dag_lut(uint64_t seed, int n, int max_impls, int formats) {
  Lut lut = random_dag_lut(seed, n, max_impls, formats);
  Rng rng(seed ^ 0x5eedULL);
  for (int i = 2; i < n; ++i) {
    auto& in = lut.layers[i].inputs;
    in = {i - 1};
    for (int k = rng.below(3); k > 0; --k) in.push_back(rng.below(i - 1));
    lut.layers[i].kind = in.size() > 1 ? LayerKind::kAdd : LayerKind::kRelu;
  }
  lut.conversions.clear();
  for (int p = 0; p < n; ++p) {
    std::vector<int> consumers;
    for (int c = p + 1; c < n; ++c)
      if (std::find(lut.layers[c].inputs.begin(), lut.layers[c].inputs.end(), p) != lut.layers[c].inputs.end())
        consumers.push_back(c);
    if (p == n - 1) consumers.push_back(-1);
    for (int a = 0; a < formats; ++a)
      for (int b = 0; b < formats; ++b) {
        if (a == b || rng.uniform() >= 0.85) continue;
        const double ms = 0.05 + 5 * rng.uniform();
        for (int c : consumers) lut.conversions.push_back({p, c, a, b, -1, ms, {"conv"}});
      }
  }
  return lut;
}

/// Streamed outputs on a random LUT (env/cost.h): random shapes, about a third of the impls
/// leaving a random share of their output in memory, random input-in-memory extras of impls
/// and chains.
inline void add_streams(Lut* lut, uint64_t seed) {
  Rng rng(seed ^ 0x57ea4ULL);
  for (LutLayer& l : lut->layers) {
    l.out_shape = {1, 1 + rng.below(8), 1 + rng.below(4), 1 + rng.below(4)};
    for (Impl& m : l.impls) {
      if (rng.uniform() < 0.35) m.output_in_memory = rng.uniform();
      if (rng.uniform() < 0.5) m.input_in_memory_ms = 3 * rng.uniform();
    }
  }
  // One figure per (producer, from, to), as the profiler writes it (a chain depends on its tensor).
  std::map<std::tuple<int, int, int>, double> extra;
  for (Conversion& c : lut->conversions) {
    auto [it, fresh] = extra.try_emplace({c.producer, c.from_format, c.to_format}, 0.0);
    if (fresh && rng.uniform() < 0.6) it->second = 2 * rng.uniform();
    c.input_in_memory_ms = it->second;
  }
}

/// Peak memory of an assignment (the liveness model of env/cost.h), straight from the LUT.
inline int64_t lut_peak_memory(const Lut& lut, const std::vector<int>& a) {
  const int n = int(lut.layers.size());
  std::vector<int> last(n);
  for (int j = 0; j < n; ++j) last[j] = j;
  for (int c = 0; c < n; ++c)
    for (int p : lut.layers[c].inputs) last[p] = std::max(last[p], c);
  int64_t weights = 0, workspace = 0, peak = 0;
  for (int i = 0; i < n; ++i) {
    const MemoryBytes& m = lut.layers[i].impls[a[i]].memory_bytes;
    weights += m.weights;
    workspace = std::max(workspace, m.workspace);
    int64_t live = 0;
    for (int j = 0; j <= i; ++j)
      if (last[j] >= i) live += lut.layers[j].impls[a[j]].memory_bytes.output;
    peak = std::max(peak, live);
  }
  return weights + workspace + peak;
}

/// Latency of an assignment computed straight from the LUT contract (independent of env/cost.cc):
/// a conversion is charged once per (producer, target format) whatever the number of consumers
/// that read it (the executor shares it); a producer's chain cost is its cheapest record.
inline double lut_latency(const Lut& lut, const std::vector<int>& a) {
  const double inf = std::numeric_limits<double>::infinity();
  auto conv = [&](int p, int from, int to) {
    double best = inf;
    for (const auto& r : lut.conversions)
      if (r.producer == p && r.from_format == from && r.to_format == to) best = std::min(best, r.chain_ms);
    return best;
  };
  // Streamed outputs: what the first converter of the cheapest chain pays for an input in memory.
  auto conv_in_memory = [&](int p, int from, int to) {
    double best = inf, extra = 0;
    for (const auto& r : lut.conversions)
      if (r.producer == p && r.from_format == from && r.to_format == to && r.chain_ms < best)
        best = r.chain_ms, extra = r.input_in_memory_ms;
    return extra;
  };
  auto elements = [](const std::vector<int64_t>& s) {
    int64_t e = 1;
    for (int64_t d : s) e *= d;
    return s.empty() ? 0.0 : double(e);
  };
  bool streams = false, reads = false;
  for (const auto& l : lut.layers)
    for (const auto& m : l.impls) streams |= m.ok() && m.output_in_memory > 0, reads |= m.ok() && m.input_in_memory_ms > 0;
  for (const auto& r : lut.conversions) reads |= r.input_in_memory_ms > 0;
  streams &= reads;
  // The share left in memory by the step that wrote layer p's output: a fused pseudo-impl's
  // is the layer before's, walking back.
  auto written = [&](int p) {
    while (p > 0 && lut.layers[p].impls[a[p]].library == "fused") --p;
    return lut.layers[p].impls[a[p]].output_in_memory;
  };
  const int n = int(lut.layers.size());
  std::vector<std::vector<int>> targets(n);  // formats each producer is converted to
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const Impl& C = lut.layers[i].impls[a[i]];
    if (!C.ok()) return inf;
    total += C.latency_ms.cost_ms();
    const std::vector<int>& ins = lut.layers[i].inputs;
    for (int p : ins) {
      const Impl& P = lut.layers[p].impls[a[p]];
      // An absorbed add reads its earlier input (the residual) like any consumer.
      const bool residual = lut.layers[i].kind == LayerKind::kAdd && ins.size() == 2 && ins[0] != ins[1] &&
                            p == std::min(ins[0], ins[1]);
      if (P.fused_activation || (C.library == "fused" && !residual)) {
        if (!(P.fused_activation && C.library == "fused" && P.out_format == C.in_format)) return inf;
      } else if (P.out_format != C.in_format) {
        if (std::find(targets[p].begin(), targets[p].end(), C.in_format) == targets[p].end()) targets[p].push_back(C.in_format);
        if (conv(p, P.out_format, C.in_format) == inf) return inf;
      }
      if (!streams || i == 0) continue;
      const double s = written(p);
      if (s <= 0) continue;
      if (P.out_format == C.in_format) {
        double all = 0;
        for (int q : ins) all += elements(lut.layers[q].out_shape);
        total += all > 0 ? s * elements(lut.layers[p].out_shape) / all * C.input_in_memory_ms : 0.0;
      } else {
        total += s * conv_in_memory(p, P.out_format, C.in_format);
      }
    }
  }
  for (int p = 0; p < n; ++p)
    for (int t : targets[p]) total += conv(p, lut.layers[p].impls[a[p]].out_format, t);
  const Impl& L = lut.layers.back().impls[a.back()];
  if (L.fused_activation) return inf;
  if (L.out_format != lut.output_format) total += conv(n - 1, L.out_format, lut.output_format);
  return total;
}

/// Calls f(a) for every assignment a of the LUT (a[i]: an index into layer i's impls), in
/// odometer order, layer 0 turning fastest.
template <typename F>
void for_each_assignment(const Lut& lut, F&& f) {
  const int n = int(lut.layers.size());
  std::vector<int> a(n, 0);
  for (;;) {
    f(static_cast<const std::vector<int>&>(a));
    int i = 0;
    while (i < n && ++a[i] == int(lut.layers[i].impls.size())) a[i++] = 0;
    if (i == n) return;
  }
}

/// Minimum latency over every assignment (with the assignment), by enumeration; with
/// `max_memory` > 0 only over those whose peak memory (lut_peak_memory) is within it.
inline double brute_force(const Lut& lut, std::vector<int>* best = nullptr, int64_t max_memory = 0) {
  double opt = std::numeric_limits<double>::infinity();
  for_each_assignment(lut, [&](const std::vector<int>& a) {
    const double l = lut_latency(lut, a);
    if (l < opt && (max_memory <= 0 || lut_peak_memory(lut, a) <= max_memory)) {
      opt = l;
      if (best) *best = a;
    }
  });
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
