/// \file
/// The deployments Layerwise is compared with (QS-DNN §VI-C, and every single-library
/// deployment a user could pick instead), all derived from the same LUT:
///   ref-fp32    OpenBLAS im2col + GEMM for every conv, NCHW, native NCHW elsewhere, no
///               fusion, one thread: the paper's Ref-FP32;
///   native, xnnpack, onednn, torch-nchw, torch-nhwc
///               one library everywhere it implements the layer (native fills the gaps),
///               f32, its best algorithm and fusion per layer (exact optimum over that
///               library alone, so each baseline is as good as that library can be);
///   opt-fp32    the exact optimum over every f32 implementation (Layerwise, f32 only);
///   opt-int8    the exact optimum with int8 allowed (f32 + int8);
///   opt-mixed   the exact optimum over f32, bf16 and int8 (oneDNN's bf16 / int8 kernels);
///               `bench` then holds it to an accuracy floor (explorer/measure/mixed_floor.h);
///   all-int8    int8 on every layer that has a usable int8 implementation, f32 on the others
///               (the exact optimum under that rule): QS-DNN's all-INT8 point of Figs. 10-11.
/// Thread sets are capped by `max_threads` (1: single-thread study, 2: both sets allowed).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "env/lut.h"
#include "env/profiler_early_stop.h"
#include "libs/core/status.h"

namespace lw {

struct NamedDeployment {
  std::string label;
  std::vector<std::string> names;  // one implementation name per LUT layer
  double predicted_ms = 0;
  int64_t predicted_memory_bytes = 0;
};

enum class Baseline {
#define X(e, label, library, reference) e,
#include "explorer/measure/baselines.inc"
#undef X
};

const char* to_string(Baseline b);
std::optional<Baseline> parse_baseline(const std::string& label);
/// The deployments the filter always measures beside the search's candidates (Ref-FP32,
/// Opt-FP32, all-INT8), in report order.
bool is_reference(Baseline b);

/// Labels in report order.
const std::vector<std::string>& baseline_labels();
/// The labels as one line for an error message ("ref-fp32, native, ...").
std::string baseline_names();
/// The labels of the references (is_reference), in report order.
const std::vector<std::string>& reference_labels();

/// The baseline `label` on this LUT, or unsupported when the LUT cannot express it (e.g. no
/// xnnpack implementation was profiled); invalid for an unknown label.
Status baseline_deployment(const Lut& lut, const std::string& label, int max_threads, NamedDeployment* out);

/// The profiler's early stop as the baselines need it (ProfileOptions::stop_rule): an
/// implementation may only be stopped in favour of a rival that every baseline keeping it
/// keeps too, so each baseline's restriction of the LUT keeps its optimum (ref-fp32's
/// openblas im2col convs and native NCHW layers, each single library's own best).
StopRule baselines_stop_rule();

/// The LUT with only the implementations `keep` accepts (the input's always kept);
/// conversions of dropped formats stay (harmless: unused).
template <typename Keep>
Lut restrict_lut(const Lut& lut, Keep keep) {
  Lut r = lut;
  for (size_t i = 1; i < r.layers.size(); ++i) {
    auto& impls = r.layers[i].impls;
    std::vector<Impl> kept;
    for (const Impl& m : impls)
      if (keep(r.layers[i], m)) kept.push_back(m);
    impls = std::move(kept);
  }
  return r;
}

}  // namespace lw
