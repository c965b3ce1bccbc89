/// \file
/// Post-training int8 quantisation (QS-DNN's per-tensor asymmetric scheme): choosing
/// activation QuantParams from calibration ranges, quantising weights per tensor or per
/// output channel (symmetric, zero point 0, as XNNPACK qs8/qc8 and LibTorch expect), and a
/// naive int8 reference for conv2d / fully-connected (integer accumulation + requantisation)
/// that every int8 primitive is checked against. The executor and the profiler take the
/// QuantParams from calibrate(); primitives read them from PrimitiveArgs.
#pragma once
#include <cstdint>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"
#include "libs/quant/calibration.h"

namespace lw {

/// int8 range of activations and weights. Weights use [-127, 127] (symmetric).
constexpr int32_t kInt8Min = -128, kInt8Max = 127;
constexpr int32_t kWeightQMax = 127;

/// Per-tensor asymmetric params covering [min, max], extended to include 0 so that zero
/// padding is exact; an all-zero range gets scale 1 (any positive scale is exact there).
QuantParams choose_quant_params(float min, float max);
int8_t quantize_value(float x, QuantParams q);
inline float dequantize_value(int8_t q, QuantParams p) { return p.scale * float(int32_t(q) - p.zero_point); }

/// Quantises an f32 tensor (any layout) into a new int8 tensor with the same layout.
Tensor quantize_tensor(const Tensor& x, QuantParams q);
/// Dequantises an int8 tensor into a new f32 tensor with the same layout.
Tensor dequantize_tensor(const Tensor& x);

/// Output QuantParams of every layer of `net` (index = layer index; the input layer's are
/// those of the network input), from the layer's f32 reference output over all `samples`
/// (NCHW f32, the network's input shape), by `method` (libs/quant/calibration.h).
/// Calibration data only: never the test split.
Status calibrate(const Network& net, const std::vector<Tensor>& samples, std::vector<QuantParams>* out,
                 CalibrationMethod method = kDefaultCalibrationMethod);

/// Per layer: whether its output can never be negative, from the graph alone (relu, relu6,
/// sigmoid, hard-sigmoid, a fused relu / relu6, and pooling, concat, add, mul, flatten or
/// slices of such outputs). Calibration then gives it zero point kInt8Min, which oneDNN's
/// int8 convolution reads as u8 (libs/onednn/dnnl_conv.cc); the profiler times it so.
std::vector<bool> non_negative_outputs(const Network& net);

/// Symmetric int8 weights: real = scales[k or 0] * q. `scales` has one entry (per tensor)
/// or one per output channel (per channel); `q` keeps the layer's weight order.
struct QuantizedWeights {
  std::vector<int8_t> q;
  std::vector<float> scales;
  bool per_channel() const { return scales.size() > 1; }
  float scale(int k) const { return per_channel() ? scales[size_t(k)] : scales[0]; }
};
QuantizedWeights quantize_weights_per_tensor(const std::vector<float>& w);
/// `w` is [out_channels][...]: one scale per leading row, q in [-qmax, qmax].
QuantizedWeights quantize_weights_per_channel(const std::vector<float>& w, int out_channels, int32_t qmax = kWeightQMax);
/// Per channel (with qmax) or per tensor, as an implementation's algorithm says
/// (libs/ops/descriptor.h weight_quantization).
QuantizedWeights quantize_weights(const std::vector<float>& w, int out_channels, bool per_channel, int32_t qmax);
/// int32 bias in units of in_scale * weight scale (empty bias -> zeros).
std::vector<int32_t> quantize_bias(const std::vector<float>& bias, int out_channels, float in_scale,
                                   const QuantizedWeights& w);

/// Quantised bounds of a fused activation on the output (relu, relu6; none -> full range).
/// Other activations cannot be a clamp: unsupported.
Status activation_bounds_int8(LayerKind act, QuantParams out, int8_t* lo, int8_t* hi);

/// Naive int8 conv2d / fully-connected on an NCHW int8 input `x` (its QuantParams are the
/// input's): int32 accumulation of
/// (x - zp_in) * w_q + bias_q, requantised with scale in_scale * w_scale / out_scale,
/// rounded to nearest, plus out zero point, clamped to the fused activation's bounds.
/// `out` is created NCHW int8 with `out_q`. With a `residual` (NCHW int8 of the output's
/// shape, its own QuantParams; the conv absorbed a residual add) the residual's real value
/// is added before rounding, and the fused activation is applied after the add:
/// out = clamp(round(acc * mult + (s_r / s_out) * (r - zp_r)) + zp_out).
Status reference_conv_int8(const Layer& layer, const QuantizedWeights& w, const Tensor& x, QuantParams out_q,
                           Tensor* out, const Tensor* residual = nullptr);
Status reference_fc_int8(const Layer& layer, const QuantizedWeights& w, const Tensor& x, QuantParams out_q,
                         Tensor* out);

}  // namespace lw
