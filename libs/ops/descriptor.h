/// \file
/// Names of implementations (QS-DNN Table I): which library, algorithm, dtype, layout and
/// thread set computes a layer, and of conversions between tensor formats. The canonical
/// string names (`conv2d_nchw_f32_native_im2col_t1`) are what the LUT, the JSON configs and
/// the CLI use; they round-trip through parse_impl_name / ImplDesc::name.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"
#include "libs/ops/thread_pool.h"

namespace lw {

enum class Library {
#define X(e, s) e,
#include "libs/ops/library.inc"
#undef X
};
enum class Algorithm {
#define X(e, s) e,
#include "libs/ops/algorithm.inc"
#undef X
};
const char* to_string(Library l);
const char* to_string(Algorithm a);
std::optional<Library> parse_library(const std::string& s);
std::optional<Algorithm> parse_algorithm(const std::string& s);
std::vector<Library> all_libraries();

/// How an int8 implementation of `a` quantises its weights (libs/quant quantize_weights):
/// per output channel or per tensor, symmetric in [-qmax, qmax]. The testers' int8
/// reference quantises them the same way.
struct WeightQuantization {
  bool per_channel = false;
  int qmax = 127;
};
WeightQuantization weight_quantization(Algorithm a);

/// Thread sets of the core dimension: 1 = cpu0, 2 = cpu0-1 (see thread_pool.h).
constexpr int kThreadSets[] = {1, 2};
bool valid_threads(int threads);
/// The thread pool a step of `lib` on `threads` threads runs on (thread_pool.h).
ThreadPoolId thread_pool_of(Library lib, int threads);

/// One implementation of one layer kind.
///
/// Name grammar (tokens joined by '_'):
///   <op> <layout_in>[-<layout_out>] <dtype_in>[-<dtype_out>] <library> <algorithm> [fused] t<threads>
/// e.g. conv2d_nchw_f32_native_winograd_f4_fused_t2, max-pool_nhwc_f32_native_default_t1,
///      conv2d_nhwc_int8-f32_xnnpack_default_t1 (an int8 conv producing f32).
/// `fused`: a conv2d that also applies the activation layer that follows it (runtime fusion).
struct ImplDesc {
  LayerKind op = LayerKind::kInput;
  Library library = Library::kNative;
  Algorithm algorithm = Algorithm::kDefault;
  DType dtype_in = DType::kF32, dtype_out = DType::kF32;
  Layout layout_in = Layout::kNCHW, layout_out = Layout::kNCHW;
  int threads = 1;
  bool fused_activation = false;

  std::string name() const;
  bool operator==(const ImplDesc& o) const;
  bool operator!=(const ImplDesc& o) const { return !(*this == o); }
  bool operator<(const ImplDesc& o) const { return name() < o.name(); }
};
/// Parses a canonical name; the error says which token is wrong.
Status parse_impl_name(const std::string& name, ImplDesc* out);

/// The format of a tensor between two primitives: layout, dtype and the thread set that
/// produced it. String: "nchw_f32_t1".
struct Format {
  Layout layout = Layout::kNCHW;
  DType dtype = DType::kF32;
  int threads = 1;
  std::string name() const;
  bool operator==(const Format& o) const { return layout == o.layout && dtype == o.dtype && threads == o.threads; }
  bool operator!=(const Format& o) const { return !(*this == o); }
};
Format input_format(const ImplDesc& d);
Format output_format(const ImplDesc& d);
/// Every layout of layout.inc, in its order.
std::vector<Layout> all_layouts();
/// The dtypes a tensor between two primitives can have: f32, int8, bf16 (int32 is internal).
std::vector<DType> activation_dtypes();
/// Every format the conversion graph knows (all_layouts x activation_dtypes x thread sets).
std::vector<Format> all_formats();

/// A direct conversion edge of the conversion graph. Name: "convert_<from>_to_<to>",
/// e.g. convert_nchw_f32_t1_to_nhwc_f32_t1.
struct ConversionDesc {
  Format from, to;
  std::string name() const;
  bool operator==(const ConversionDesc& o) const { return from == o.from && to == o.to; }
};
Status parse_conversion_name(const std::string& name, ConversionDesc* out);
/// The pool a conversion step runs on by itself: ours (native) when it writes a 2-thread
/// format and moves data; a change of thread set alone moves none and runs on the caller,
/// waking no pool. (The executor lends a 2-thread one the pool of the step that reads it.)
ThreadPoolId conversion_pool(const ConversionDesc& c);

}  // namespace lw
