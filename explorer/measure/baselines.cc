#include "explorer/measure/baselines.h"

#include <functional>

#include "agents/agent.h"
#include "env/cost.h"
#include "env/env.h"

namespace lw {

namespace {

using Keep = std::function<bool(const LutLayer&, const Impl&)>;

bool has_library(const LutLayer& l, const std::string& lib, int max_threads) {
  for (const Impl& m : l.impls)
    if (m.ok() && m.library == lib && m.dtype == DType::kF32 && m.threads <= max_threads) return true;
  return false;
}

// One library where it implements the layer; native (or the fused pseudo-impl) elsewhere.
Keep single_library(const std::string& lib, const std::string& algorithm_prefix, int max_threads) {
  return [=](const LutLayer& l, const Impl& m) {
    if (m.dtype != DType::kF32 || m.threads > max_threads) return false;
    if (m.library == "fused") return true;
    bool lib_here = has_library(l, lib, max_threads);
    if (!lib_here) return m.library == "native";
    return m.library == lib && m.algorithm.rfind(algorithm_prefix, 0) == 0;
  };
}

// torch-nchw / torch-nhwc: LibTorch's convs in one layout, everything else native in it.
Keep torch_layout(Layout layout, const Lut& lut, int max_threads) {
  return [&lut, layout, max_threads](const LutLayer& l, const Impl& m) {
    if (m.dtype != DType::kF32 || m.threads > max_threads) return false;
    if (lut.formats[m.in_format].layout != layout || lut.formats[m.out_format].layout != layout) return false;
    if (m.library == "fused") return true;
    return has_library(l, "torch", max_threads) ? m.library == "torch" : m.library == "native";
  };
}

Keep ref_fp32(const Lut& lut) {
  return [&lut](const LutLayer& l, const Impl& m) {
    if (m.dtype != DType::kF32 || m.threads != 1 || m.fused_activation || m.library == "fused") return false;
    if (lut.formats[m.in_format].layout != Layout::kNCHW || lut.formats[m.out_format].layout != Layout::kNCHW)
      return false;
    if (l.kind == LayerKind::kConv2d) return m.library == "openblas" && m.algorithm == "im2col";
    return m.library == "native";
  };
}

bool has_int8(const LutLayer& l, int max_threads) {
  for (const Impl& m : l.impls)
    if (m.ok() && m.dtype == DType::kI8 && m.threads <= max_threads) return true;
  return false;
}

// all-int8: int8 wherever the layer has a usable int8 implementation, f32 elsewhere.
Keep all_int8(int max_threads) {
  return [max_threads](const LutLayer& l, const Impl& m) {
    if (m.threads > max_threads) return false;
    return has_int8(l, max_threads) ? m.dtype == DType::kI8 : m.dtype == DType::kF32;
  };
}

Keep keep_for(const Lut& lut, Baseline b, int t) {
  switch (b) {
    case Baseline::kRefFp32: return ref_fp32(lut);
    case Baseline::kNative: return single_library("native", "", t);
    case Baseline::kXnnpack: return single_library("xnnpack", "", t);
    case Baseline::kOnednn: return single_library("onednn", "", t);
    case Baseline::kTorchNchw: return torch_layout(Layout::kNCHW, lut, t);
    case Baseline::kTorchNhwc: return torch_layout(Layout::kNHWC, lut, t);
    case Baseline::kOptFp32: return [t](const LutLayer&, const Impl& m) { return m.dtype == DType::kF32 && m.threads <= t; };
    case Baseline::kOptInt8:
      return [t](const LutLayer&, const Impl& m) { return m.dtype != DType::kBF16 && m.threads <= t; };
    case Baseline::kOptMixed: return [t](const LutLayer&, const Impl& m) { return m.threads <= t; };
    case Baseline::kAllInt8: return all_int8(t);
  }
  return {};
}

struct BaselineInfo {
  Baseline id;
  const char* label;
  const char* library;  // the LUT must have it ("" = none needed)
  bool reference;
};

constexpr BaselineInfo kBaselines[] = {
#define X(e, label, library, reference) {Baseline::e, label, library, reference},
#include "explorer/measure/baselines.inc"
#undef X
};

const BaselineInfo& info(Baseline b) { return kBaselines[int(b)]; }

}  // namespace

// The keep rules look at the layer only to ask whether a library implements it there, so
// both answers are tried: the layer with only the two implementations, and with an f32 one
// of every library a baseline names.
StopRule baselines_stop_rule() {
  return [](const Lut& lut, LayerKind kind, const Impl& slow, const Impl& rival) {
    for (bool every_library : {false, true}) {
      LutLayer layer;
      layer.kind = kind;
      layer.impls = {slow, rival};
      layer.impls[0].status = layer.impls[1].status = ImplStatus::kOk;
      if (every_library) {
        Impl other;  // f32, thread set 1, ok
        other.library = "native";
        layer.impls.push_back(other);
        for (const BaselineInfo& b : kBaselines) {
          if (!*b.library) continue;
          other.library = b.library;
          layer.impls.push_back(other);
        }
      }
      for (const BaselineInfo& b : kBaselines)
        for (int threads : {1, 2}) {
          Keep keep = keep_for(lut, b.id, threads);
          if (keep(layer, slow) && !keep(layer, rival)) return false;
        }
    }
    return true;
  };
}

const char* to_string(Baseline b) { return info(b).label; }
bool is_reference(Baseline b) { return info(b).reference; }

std::optional<Baseline> parse_baseline(const std::string& label) {
  for (const BaselineInfo& i : kBaselines)
    if (label == i.label) return i.id;
  return std::nullopt;
}

const std::vector<std::string>& baseline_labels() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const BaselineInfo& i : kBaselines) v.push_back(i.label);
    return v;
  }();
  return k;
}

std::string baseline_names() {
  std::string s;
  for (const BaselineInfo& i : kBaselines) s += (s.empty() ? "" : ", ") + std::string(i.label);
  return s;
}

const std::vector<std::string>& reference_labels() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const BaselineInfo& i : kBaselines)
      if (i.reference) v.push_back(i.label);
    return v;
  }();
  return k;
}

Status baseline_deployment(const Lut& lut, const std::string& label, int max_threads, NamedDeployment* out) {
  std::optional<Baseline> b = parse_baseline(label);
  if (!b) return invalid_argument("unknown baseline '" + label + "'");
  Keep keep = keep_for(lut, *b, max_threads);
  const std::string lib = info(*b).library;
  bool present = lib.empty();
  for (const LutLayer& l : lut.layers) present = present || has_library(l, lib, max_threads);
  if (!present)  // (a LUT of `profile --libs` without it, or one whose every such row failed)
    return unsupported(label + ": the LUT has no usable " + lib + " implementation (profile with " + lib + ")");
  Lut sub = restrict_lut(lut, keep);
  for (size_t i = 1; i < sub.layers.size(); ++i)
    if (sub.layers[i].impls.empty())
      return unsupported(label + ": no implementation of layer '" + sub.layers[i].name + "' in the LUT");
  Problem p;
  Status s = compile_problem(sub, &p);
  if (!s.is_ok()) return unsupported(label + ": " + s.message());
  DeploymentEnv env(p);
  AgentRequest req;
  req.record_solutions = false;
  SearchResult r;
  LW_RETURN_IF_ERROR(run_agent("exact", env, req, &r));
  if (r.best.empty() || !(r.best_latency_ms < kInf)) return unsupported(label + ": no feasible deployment");
  out->label = label;
  out->names.assign(sub.layers.size(), "");
  for (size_t i = 0; i < sub.layers.size(); ++i) out->names[i] = sub.layers[i].impls[r.best[i]].name;
  out->predicted_ms = predict_latency_ms(p, r.best);
  out->predicted_memory_bytes = r.best_memory_bytes;
  return Status::ok();
}

}  // namespace lw
