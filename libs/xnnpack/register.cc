// Registration of every xnnpack implementation: layer kinds x dtypes x layouts x thread sets.
#include <cstdio>

#include "libs/ops/omp_team.h"
#include "libs/ops/thread_pool.h"
#include "libs/xnnpack/xnn_common.h"

namespace lw {
namespace {

struct Variant {
  LayerKind op;
  Algorithm algo;
  DType dtype;
  Layout layout;
  bool fused;  // runtime fusion of the following relu / relu6 into the output clamp
  SupportsFn supports;
  CreateFn create;
};

std::vector<Variant> variants() {
  using namespace xnn;
  std::vector<Variant> v;
  for (bool fused : {false, true}) {
    v.push_back({LayerKind::kConv2d, Algorithm::kDefault, DType::kF32, Layout::kNHWC, fused, supports_conv, create_conv});
    v.push_back({LayerKind::kConv2d, Algorithm::kDefault, DType::kI8, Layout::kNHWC, fused, supports_conv, create_conv});
    v.push_back({LayerKind::kConv2d, Algorithm::kQc8, DType::kI8, Layout::kNHWC, fused, supports_conv, create_conv});
  }
  for (Layout l : {Layout::kNCHW, Layout::kNHWC}) {
    v.push_back({LayerKind::kFullyConnected, Algorithm::kDefault, DType::kF32, l, false, supports_fc, create_fc});
    v.push_back({LayerKind::kFullyConnected, Algorithm::kDefault, DType::kI8, l, false, supports_fc, create_fc});
    for (LayerKind k : {LayerKind::kAdd, LayerKind::kMul, LayerKind::kRelu, LayerKind::kRelu6, LayerKind::kHardSwish,
                        LayerKind::kSigmoid, LayerKind::kSoftmax})
      v.push_back({k, Algorithm::kDefault, DType::kF32, l, false, supports_layer, create_layer});
  }
  for (LayerKind k : {LayerKind::kMaxPool, LayerKind::kAvgPool, LayerKind::kGlobalAvgPool})
    v.push_back({k, Algorithm::kDefault, DType::kF32, Layout::kNHWC, false, supports_layer, create_layer});
  return v;
}

}  // namespace

void register_xnnpack(Registry& r) {
  Status s = xnn::initialize();
  if (!s.is_ok()) {
    std::fprintf(stderr, "layerwise: xnnpack not registered: %s\n", s.to_string().c_str());
    return;
  }
  prepare_omp_team();  // XNNPACK's 2-thread steps run on libgomp's team (omp_pthreadpool.cc)
  xnn::pool_for(2);    // made now, never inside a timed run
  for (const Variant& v : variants())
    for (int t : kThreadSets) {
      ImplDesc d;
      d.op = v.op;
      d.library = Library::kXnnpack;
      d.algorithm = v.algo;
      d.dtype_in = d.dtype_out = v.dtype;
      d.layout_in = d.layout_out = v.layout;
      d.threads = t;
      d.fused_activation = v.fused;
      r.add({d, v.supports, v.create});
    }
}

}  // namespace lw
