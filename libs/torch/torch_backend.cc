// Registration of the torch implementations and their supports checks (no LibTorch
// headers here).
#include "libs/core/cpu.h"
#include "libs/ops/omp_team.h"
#include "libs/quant/quant.h"
#include "libs/torch/torch_ops_common.h"

namespace lw {
namespace {

Status supports_common(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (in.size() != 1) return invalid_argument("expects one input");
  if (int64_t(l.weights.size()) != weight_count(l, in)) return invalid_argument("weights missing or of the wrong size");
  if (d.layout_in != d.layout_out || d.dtype_in != d.dtype_out) return unsupported("torch primitives keep layout and dtype");
  Shape out;
  return infer_layer_shape(l, in, &out);
}

Status supports_conv_int8(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  LW_RETURN_IF_ERROR(supports_common(d, l, in));
  const Window& w = l.window;
  if (w.pad_top != w.pad_bottom || w.pad_left != w.pad_right)
    return unsupported("torch quantized conv2d pads symmetrically");
  // LibTorch's oneDNN engine reads the activations as u8: without VNNI its u8 x s8 pair sums
  // saturate at 16 bits (PyTorch warns of it for its onednn qconfig; reduce_range, i.e.
  // 7-bit activations, would avoid it but our int8 activations are shared by all backends).
  if (torch_ops::onednn_engine(d.algorithm) && !cpu_has_int8_dot())
    return unsupported("LibTorch's oneDNN int8 conv without VNNI saturates 16-bit u8 x s8 pair sums (vpmaddubsw)");
  int8_t lo, hi;
  return activation_bounds_int8(l.fused_activation, QuantParams{}, &lo, &hi);
}

struct Variant {
  LayerKind op;
  Algorithm algo;
  DType dtype;
  SupportsFn supports;
  CreateFn create;
};

}  // namespace

void register_torch(Registry& r) {
  using namespace torch_ops;
  prepare_omp_team();  // LibTorch's 2-thread steps run on libgomp's team, as oneDNN's do
  const Variant variants[] = {
      {LayerKind::kConv2d, Algorithm::kDefault, DType::kF32, supports_common, create_conv_f32},
      {LayerKind::kConv2d, Algorithm::kOnednn, DType::kF32, supports_common, create_conv_f32_prepacked},
      {LayerKind::kFullyConnected, Algorithm::kDefault, DType::kF32, supports_common, create_fc_f32},
      {LayerKind::kConv2d, Algorithm::kQnnpack, DType::kI8, supports_conv_int8, create_conv_int8},
      {LayerKind::kConv2d, Algorithm::kOnednn, DType::kI8, supports_conv_int8, create_conv_int8},
      {LayerKind::kConv2d, Algorithm::kQnnpackPerChannel, DType::kI8, supports_conv_int8, create_conv_int8},
      {LayerKind::kConv2d, Algorithm::kOnednnPerChannel, DType::kI8, supports_conv_int8, create_conv_int8},
  };
  for (const Variant& v : variants)
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC})
      for (bool fused : {false, true})
        for (int t : kThreadSets) {
          if (fused && v.op != LayerKind::kConv2d) continue;
          ImplDesc d;
          d.op = v.op;
          d.library = Library::kTorch;
          d.algorithm = v.algo;
          d.dtype_in = d.dtype_out = v.dtype;
          d.layout_in = d.layout_out = layout;
          d.threads = t;
          d.fused_activation = fused;
          r.add({d, v.supports, v.create});
        }
}

}  // namespace lw
