// Registration of every onednn implementation: a table of (layer kind, dtypes, layouts)
// crossed with {plain, fused} and the thread sets.
#include "libs/onednn/dnnl_common.h"
#include "libs/ops/omp_team.h"

namespace lw {
namespace {

struct Variant {
  LayerKind op;
  DType dtype;
  Layout in, out;
  bool fused;
  SupportsFn supports;
  CreateFn create;
  Algorithm algorithm = Algorithm::kDefault;  // kDefault: direct, or the int8 default below
};

std::vector<Variant> variants() {
  using namespace dnnl_ops;
  std::vector<Variant> v;
  const Layout blocked[] = {Layout::kNCHW16C, Layout::kNCHW8C};
  for (DType dt : activation_dtypes())
    for (Layout l : all_layouts()) {
      for (bool fused : {false, true}) {
        v.push_back({LayerKind::kConv2d, dt, l, l, fused, supports_conv, create_conv});
        // oneDNN 2.6's Winograd is f32 only (3x3, stride 1; blocked layouts on AVX-512).
        if (dt == DType::kF32)
          v.push_back({LayerKind::kConv2d, dt, l, l, fused, supports_conv, create_conv, Algorithm::kWinograd});
        // A plain NCHW input into a blocked output: the first layer's usual form.
        if (l == Layout::kNCHW && dt != DType::kI8)
          for (Layout b : blocked) v.push_back({LayerKind::kConv2d, dt, l, b, fused, supports_conv, create_conv});
      }
      v.push_back({LayerKind::kFullyConnected, dt, l, layout_block(l) > 1 ? Layout::kNCHW : l, false, supports_fc, create_fc});
      if (dt == DType::kI8) {  // pooling keeps the input's quantisation; the rest would requantise
        for (LayerKind k : {LayerKind::kMaxPool, LayerKind::kAvgPool, LayerKind::kGlobalAvgPool})
          v.push_back({k, dt, l, l, false, supports_layer, create_layer});
        continue;
      }
      for (LayerKind k : {LayerKind::kMaxPool, LayerKind::kAvgPool, LayerKind::kGlobalAvgPool, LayerKind::kRelu,
                          LayerKind::kRelu6, LayerKind::kHardSwish, LayerKind::kSigmoid, LayerKind::kGelu, LayerKind::kAdd,
                          LayerKind::kMul, LayerKind::kConcat})
        v.push_back({k, dt, l, l, false, supports_layer, create_layer});
    }
  return v;
}

}  // namespace

void register_onednn(Registry& r) {
  prepare_omp_team();
  for (const Variant& v : variants())
    for (int t : kThreadSets) {
      ImplDesc d;
      d.op = v.op;
      d.library = Library::kOnednn;
      d.dtype_in = d.dtype_out = v.dtype;
      d.layout_in = v.in;
      d.layout_out = v.out;
      d.threads = t;
      d.fused_activation = v.fused;
      // int8 weights are per output channel: 8-bit (named like XNNPACK's per-channel kernels)
      // where the CPU has VNNI, 7-bit where it has not (dnnl_conv.cc supports_int8_dot).
      const bool weighted = v.op == LayerKind::kConv2d || v.op == LayerKind::kFullyConnected;
      if (v.dtype != DType::kI8 || !weighted) {
        d.algorithm = v.algorithm;
        r.add({d, v.supports, v.create});
        continue;
      }
      for (Algorithm a : {Algorithm::kQc8, Algorithm::kQc7}) {
        d.algorithm = a;
        r.add({d, v.supports, v.create});
      }
    }
}

}  // namespace lw
