#include "env/synthetic_lut.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "env/rng.h"
#include "libs/ir/network_json.h"

namespace lw {
namespace {

// Invented machine constants: a few-GMAC/s CPU core with ~10 GB/s of memory bandwidth.
constexpr double kMacsPerMs = 10e6;      // f32 MACs per ms at efficiency 1, one thread
constexpr double kBytesPerMs = 10e6;     // streaming bandwidth, bytes per ms
constexpr double kOverheadMs = 0.004;    // fixed cost per primitive call
constexpr double kTwoThreadBig = 1.8;    // speed-up of 2 threads on large layers
constexpr double kTwoThreadSmall = 1.1;  // ... and on small ones (threading overhead)
constexpr double kBigLayerMacs = 5e6;
constexpr double kLayoutNsPerElem = 0.5e-6;  // layout transpose, ms per element
constexpr double kQuantNsPerElem = 0.3e-6;   // quantise / dequantise, ms per element
constexpr double kThreadSwitchMs = 0.003;    // moving a tensor to another thread set
constexpr double kFusedExtra = 1.02;         // a fused conv costs a little more than the conv

// Formats: index = (layout * 2 + dtype) * 2 + (threads - 1).
int format_index(Layout l, DType d, int threads) { return (int(l) * 2 + (d == DType::kI8 ? 1 : 0)) * 2 + threads - 1; }

struct ConvAlgo {
  const char* library;
  const char* algorithm;
  Layout in, out;
  DType dtype;
  double efficiency;  // relative to kMacsPerMs (fast algorithms > 1: fewer multiplies)
  bool fusable;
};

const ConvAlgo kConvAlgos[] = {
    {"native", "direct", Layout::kNCHW, Layout::kNCHW, DType::kF32, 0.15, true},
    {"native", "im2col", Layout::kNCHW, Layout::kNCHW, DType::kF32, 0.55, true},
    {"native", "im2row", Layout::kNHWC, Layout::kNHWC, DType::kF32, 0.6, true},
    {"native", "im2row_to_nchw", Layout::kNHWC, Layout::kNCHW, DType::kF32, 0.5, false},
    {"native", "winograd_2x2_3x3", Layout::kNCHW, Layout::kNCHW, DType::kF32, 1.1, true},
    {"native", "winograd_4x4_3x3", Layout::kNCHW, Layout::kNCHW, DType::kF32, 1.6, true},
    {"native", "gemm_1x1", Layout::kNCHW, Layout::kNCHW, DType::kF32, 0.7, true},
    {"native", "depthwise_direct", Layout::kNHWC, Layout::kNHWC, DType::kF32, 0.35, true},
    {"openblas", "im2col", Layout::kNCHW, Layout::kNCHW, DType::kF32, 0.65, false},
    {"xnnpack", "default", Layout::kNHWC, Layout::kNHWC, DType::kF32, 0.75, true},
    {"xnnpack", "default", Layout::kNHWC, Layout::kNHWC, DType::kI8, 1.3, true},
    {"torch", "onednn", Layout::kNCHW, Layout::kNCHW, DType::kF32, 0.8, true},
    {"torch", "onednn_channels_last", Layout::kNHWC, Layout::kNHWC, DType::kF32, 0.85, true},
    {"torch", "onednn_int8", Layout::kNHWC, Layout::kNHWC, DType::kI8, 2.6, false},
    {"torch", "qnnpack_int8", Layout::kNHWC, Layout::kNHWC, DType::kI8, 0.3, false},
};

// Empty when applicable, else why not.
std::string conv_unsupported(const ConvAlgo& a, const Layer& l, const Shape& in) {
  const std::string alg = a.algorithm;
  const bool k3s1 = l.window.kh == 3 && l.window.kw == 3 && l.window.stride_h == 1 && l.window.stride_w == 1;
  const bool depthwise = l.groups > 1 && l.groups == in.c;
  if (alg.rfind("winograd", 0) == 0 && (!k3s1 || l.groups != 1)) return "winograd needs a dense 3x3 stride-1 conv";
  if (alg == "gemm_1x1" && (l.window.kh != 1 || l.window.kw != 1 || l.window.stride_h != 1))
    return "1x1-as-GEMM needs a 1x1 stride-1 conv";
  if (alg == "depthwise_direct" && !depthwise) return "not a depthwise conv";
  if (std::string(a.library) == "openblas" && l.groups != 1) return "grouped conv not supported";
  if (std::string(a.library) == "torch" && a.dtype == DType::kI8 && depthwise && alg == "qnnpack_int8")
    return "depthwise int8 not supported by this engine";
  return "";
}

struct Gen {
  const Network& net;
  const SyntheticLutOptions& o;
  Rng rng;
  Lut* lut;

  double noisy(double ms) { return ms * std::exp(o.noise_sigma * rng.normal()); }
  double threads_factor(double macs_or_bytes, int threads) {
    if (threads == 1) return 1.0;
    return 1.0 / (macs_or_bytes > kBigLayerMacs ? kTwoThreadBig : kTwoThreadSmall);
  }

  Impl make(const std::string& kind, const char* library, const char* algorithm, Layout in, Layout out, DType d,
            int threads, double ms, MemoryBytes mem) {
    Impl m;
    char name[160];
    std::snprintf(name, sizeof name, "%s_%s_%s_%s_%s_t%d", kind.c_str(), to_string(in), to_string(d), library,
                  algorithm, threads);
    m.name = name;
    m.library = library;
    m.algorithm = algorithm;
    m.dtype = d;
    m.in_format = format_index(in, d, threads);
    m.out_format = format_index(out, d, threads);
    m.threads = threads;
    const double median = noisy(ms);
    m.latency_ms = {median, median * 0.97, median * 1.05, 0.02, 20};
    m.memory_bytes = mem;
    if (rng.uniform() < o.failed_fraction) {
      m.status = ImplStatus::kFailed;
      m.reason = "synthetic: measurement failed";
    }
    return m;
  }

  void conv_impls(int i, LutLayer* ll) {
    const Layer& l = net.layers[i];
    const Shape in = net.layers[l.inputs[0]].out;
    const double macs = double(layer_macs(net, i));
    const int64_t params = layer_params(net, i);
    const int64_t out_elems = l.out.elements();
    const int64_t lowered = int64_t(l.window.kh) * l.window.kw * (in.c / l.groups) * l.out.h * l.out.w;
    for (const ConvAlgo& a : kConvAlgos)
      for (int t = 1; t <= 2; ++t) {
        const size_t b = dtype_bytes(a.dtype);
        const std::string alg = a.algorithm;
        int64_t ws = 0, weights = params * int64_t(b);
        if (alg.find("im2") != std::string::npos || std::string(a.library) == "openblas") ws = lowered * int64_t(b);
        if (alg == "winograd_2x2_3x3") ws = int64_t(16.0 / 4 * (in.c + l.out.c) * l.out.h * l.out.w / 4 * b), weights = weights * 16 / 9;
        if (alg == "winograd_4x4_3x3") ws = int64_t(36.0 / 16 * (in.c + l.out.c) * l.out.h * l.out.w * b), weights = weights * 36 / 9;
        const double ms = kOverheadMs + macs / (kMacsPerMs * a.efficiency) * threads_factor(macs, t);
        Impl m = make("conv2d", a.library, a.algorithm, a.in, a.out, a.dtype, t, ms,
                      {weights, ws, out_elems * int64_t(b)});
        std::string why = conv_unsupported(a, l, in);
        if (!why.empty()) {
          m.status = ImplStatus::kUnsupported;
          m.reason = why;
          m.latency_ms = {};
        }
        ll->impls.push_back(m);
        if (a.fusable && m.ok() && fused_candidate(i)) {
          Impl f = m;
          f.name += "_fused";
          f.fused_activation = true;
          f.latency_ms.scale(kFusedExtra);
          ll->impls.push_back(f);
        }
      }
  }

  // Runtime fusion needs the conv's only consumer to be an activation.
  bool fused_candidate(int i) const {
    const auto cons = net.consumers()[i];
    return cons.size() == 1 && is_activation(net.layers[cons[0]].kind);
  }

  void simple_impls(int i, LutLayer* ll) {
    const Layer& l = net.layers[i];
    const int64_t elems = l.out.elements();
    int64_t in_elems = 0;
    for (int p : l.inputs) in_elems += net.layers[p].out.elements();
    const double macs = double(layer_macs(net, i));
    const bool fc = l.kind == LayerKind::kFullyConnected;
    const bool float_only = l.kind == LayerKind::kSoftmax || l.kind == LayerKind::kSigmoid ||
                            l.kind == LayerKind::kGelu || l.kind == LayerKind::kLayerNorm;
    for (Layout lay : {Layout::kNCHW, Layout::kNHWC})
      for (DType d : {DType::kF32, DType::kI8})
        for (int t = 1; t <= 2; ++t) {
          if (float_only && d == DType::kI8) continue;
          const size_t b = dtype_bytes(d);
          const double bytes = double((elems + in_elems) * int64_t(b));
          double ms = kOverheadMs + bytes / kBytesPerMs * threads_factor(bytes, t);
          if (fc) ms = kOverheadMs + macs / (kMacsPerMs * (d == DType::kI8 ? 1.2 : 0.6)) * threads_factor(macs, t);
          const int64_t weights = layer_params(net, i) * int64_t(b);
          ll->impls.push_back(make(to_string(l.kind), fc && lay == Layout::kNCHW ? "openblas" : "native",
                                   fc ? "gemm" : "default", lay, lay, d, t, ms, {weights, 0, elems * int64_t(b)}));
        }
    if (!is_activation(l.kind)) return;
    // "fused" impls: the producer already applied this activation; one per format it can deliver.
    std::set<int> fused_formats;
    for (const Impl& m : lut->layers[l.inputs[0]].impls)
      if (m.fused_activation) fused_formats.insert(m.out_format);
    for (int f : fused_formats) {
      Impl m;
      m.name = std::string(to_string(l.kind)) + "_fused_f" + std::to_string(f);
      m.library = "fused";
      m.algorithm = "in_producer";
      m.dtype = lut->formats[f].dtype;
      m.in_format = m.out_format = f;
      m.threads = lut->formats[f].threads;
      m.latency_ms = {0, 0, 0, 0, 0};
      m.memory_bytes = {0, 0, 0};  // the activation is applied in place in the producer's output
      ll->impls.push_back(m);
    }
  }

  double conversion_ms(int from, int to, int64_t elems, std::vector<std::string>* chain) {
    const Format& a = lut->formats[from];
    const Format& b = lut->formats[to];
    double ms = 0;
    if (a.dtype != b.dtype) {
      ms += double(elems) * kQuantNsPerElem;
      chain->push_back(std::string(to_string(a.dtype)) + "->" + to_string(b.dtype));
    }
    if (a.layout != b.layout) {
      ms += double(elems) * kLayoutNsPerElem * (a.dtype == DType::kI8 && b.dtype == DType::kI8 ? 0.5 : 1.0);
      chain->push_back(std::string(to_string(a.layout)) + "->" + to_string(b.layout));
    }
    if (a.threads != b.threads) {
      ms += kThreadSwitchMs;
      chain->push_back("t" + std::to_string(a.threads) + "->t" + std::to_string(b.threads));
    }
    return ms;
  }

  void edge_conversions(int producer, int consumer, const std::set<int>& from, const std::set<int>& to) {
    const int64_t elems = net.layers[producer].out.elements();
    for (int f : from)
      for (int t : to) {
        if (f == t) continue;
        Conversion c;
        c.producer = producer;
        c.consumer = consumer;
        c.from_format = f;
        c.to_format = t;
        c.chain_ms = noisy(conversion_ms(f, t, elems, &c.chain));
        c.direct_ms = c.chain.size() == 1 ? c.chain_ms : -1;
        lut->conversions.push_back(c);
      }
  }
};

std::set<int> formats_of(const LutLayer& l, bool out) {
  std::set<int> s;
  for (const Impl& m : l.impls)
    // Fused producers feed only fused consumers (no conversion); fused consumers take no conversion in.
    if (m.ok() && (out ? !m.fused_activation : !m.is_fused_consumer())) s.insert(out ? m.out_format : m.in_format);
  return s;
}

}  // namespace

Status synthetic_lut(const Network& net, const SyntheticLutOptions& options, Lut* out) {
  if (net.layers.empty()) return invalid_argument("synthetic LUT: empty network");
  Lut lut;
  lut.model_name = net.name;
  lut.model_hash = model_hash(net);
  lut.device_json = R"({"synthetic":true,"generator":"layerwise synthetic_lut","seed":)" +
                    std::to_string(options.seed) + "}";
  lut.protocol_json = R"({"synthetic":true})";
  for (Layout l : {Layout::kNCHW, Layout::kNHWC})
    for (DType d : {DType::kF32, DType::kI8})
      for (int t = 1; t <= 2; ++t) lut.formats.push_back({l, d, t});
  Gen g{net, options, Rng(options.seed), &lut};
  for (int i = 0; i < int(net.layers.size()); ++i) {
    const Layer& l = net.layers[i];
    LutLayer ll;
    ll.name = l.name;
    ll.kind = l.kind;
    ll.inputs = l.inputs;
    for (int p : l.inputs) ll.depth = std::max(ll.depth, lut.layers[p].depth + 1);
    ll.out_shape = {l.out.n, l.out.c, l.out.h, l.out.w};
    lut.layers.push_back(ll);
    LutLayer& cur = lut.layers.back();
    if (l.kind == LayerKind::kInput) {
      Impl m = g.make("input", "input", "default", Layout::kNCHW, Layout::kNCHW, DType::kF32, 1, 0, {0, 0, l.out.elements() * 4});
      m.latency_ms = {0, 0, 0, 0, 0};
      m.status = ImplStatus::kOk;
      m.reason.clear();
      cur.impls.push_back(m);
    } else if (l.kind == LayerKind::kConv2d) {
      g.conv_impls(i, &cur);
    } else {
      g.simple_impls(i, &cur);
    }
  }
  for (int c = 0; c < int(lut.layers.size()); ++c)
    for (int p : lut.layers[c].inputs) g.edge_conversions(p, c, formats_of(lut.layers[p], true), formats_of(lut.layers[c], false));
  lut.output_format = 0;
  g.edge_conversions(int(lut.layers.size()) - 1, -1, formats_of(lut.layers.back(), true), {0});
  *out = std::move(lut);
  return Status::ok();
}

Status synthetic_zoo_lut(const std::string& model, const SyntheticLutOptions& options, Lut* out) {
  Network net;
  LW_RETURN_IF_ERROR(build_zoo_model(model, options.zoo, &net));
  // Static fusion changes only the topology we need here, so fold BatchNorm structurally
  // (fold_affine needs weights, which a synthetic LUT never uses).
  Network folded;
  folded.name = net.name;
  std::vector<int> map(net.layers.size());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    Layer l = net.layers[i];
    for (int& in : l.inputs) in = map[in];
    if (l.kind == LayerKind::kBatchNorm) {
      map[i] = l.inputs[0];
      folded.layers[map[i]].has_bias = true;
      continue;
    }
    l.weights.clear();
    l.bias.clear();
    map[i] = int(folded.layers.size());
    folded.layers.push_back(std::move(l));
  }
  LW_RETURN_IF_ERROR(infer_shapes(folded));
  return synthetic_lut(folded, options, out);
}

}  // namespace lw
