#include "libs/quant/quant.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "libs/ref/reference.h"

namespace lw {

QuantParams choose_quant_params(float min, float max) {
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  QuantParams q;
  if (!(max > min)) return q;  // all zeros (or NaN): scale 1, zero point 0 is exact
  q.scale = (max - min) / float(kInt8Max - kInt8Min);
  // The zero point makes 0 exactly representable; min maps to kInt8Min.
  float zp = float(kInt8Min) - min / q.scale;
  q.zero_point = int32_t(std::clamp(std::nearbyint(zp), float(kInt8Min), float(kInt8Max)));
  return q;
}

int8_t quantize_value(float x, QuantParams q) {
  float v = std::nearbyint(x / q.scale) + float(q.zero_point);
  return int8_t(std::clamp(v, float(kInt8Min), float(kInt8Max)));
}

Tensor quantize_tensor(const Tensor& x, QuantParams q) {
  Tensor y = Tensor::create(x.shape(), DType::kI8, x.layout());
  y.set_quant(q);
  for (int64_t i = 0; i < x.shape().elements(); ++i) y.i8()[i] = quantize_value(x.f32()[i], q);
  return y;
}

Tensor dequantize_tensor(const Tensor& x) {
  Tensor y = Tensor::create(x.shape(), DType::kF32, x.layout());
  for (int64_t i = 0; i < x.shape().elements(); ++i) y.f32()[i] = dequantize_value(x.i8()[i], x.quant());
  return y;
}

Status calibrate(const Network& net, const std::vector<Tensor>& samples, std::vector<QuantParams>* out,
                 CalibrationMethod method) {
  if (samples.empty()) return invalid_argument("failed to calibrate " + net.name + ": no samples");
  Calibrator c(net.layers.size(), method);
  for (int pass = 0; pass < c.passes(); ++pass) {
    for (const Tensor& s : samples) {
      if (s.dtype() != DType::kF32 || s.layout() != Layout::kNCHW || s.shape() != net.input_shape())
        return invalid_argument("failed to calibrate " + net.name + ": samples must be NCHW f32 of shape " +
                                net.input_shape().to_string());
      std::vector<Tensor> outs;
      Status st = reference_forward(net, s, &outs);
      if (!st.is_ok()) return Status(st.code(), "failed to calibrate " + net.name + ": " + st.message());
      for (size_t i = 0; i < outs.size(); ++i) c.observe(pass, i, outs[i].f32(), outs[i].shape().elements());
    }
  }
  *out = c.params();
  return Status::ok();
}

std::vector<bool> non_negative_outputs(const Network& net) {
  std::vector<bool> out(net.layers.size(), false);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    bool inputs_non_negative = !l.inputs.empty();
    for (int p : l.inputs) inputs_non_negative = inputs_non_negative && out[size_t(p)];
    switch (l.kind) {
      case LayerKind::kRelu: case LayerKind::kRelu6: case LayerKind::kSigmoid: case LayerKind::kHardSigmoid:
        out[i] = true;
        break;
      case LayerKind::kMaxPool: case LayerKind::kAvgPool: case LayerKind::kGlobalAvgPool: case LayerKind::kAdd:
      case LayerKind::kMul: case LayerKind::kConcat: case LayerKind::kFlatten: case LayerKind::kChannelShuffle:
      case LayerKind::kChannelSlice:
        out[i] = inputs_non_negative;
        break;
      default: break;
    }
    const LayerKind a = l.fused_activation;
    if (a == LayerKind::kRelu || a == LayerKind::kRelu6 || a == LayerKind::kSigmoid || a == LayerKind::kHardSigmoid)
      out[i] = true;
  }
  return out;
}

namespace {

// Symmetric scale for max |w| (1 when all zero, so that q stays 0).
float symmetric_scale(const float* w, size_t n, int32_t qmax) {
  float m = 0.f;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(w[i]));
  return m > 0.f ? m / float(qmax) : 1.f;
}

void quantize_rows(const float* w, size_t n, float scale, int32_t qmax, int8_t* q) {
  for (size_t i = 0; i < n; ++i) q[i] = int8_t(std::clamp(std::nearbyint(w[i] / scale), float(-qmax), float(qmax)));
}

}  // namespace

QuantizedWeights quantize_weights_per_tensor(const std::vector<float>& w) {
  QuantizedWeights r;
  r.q.resize(w.size());
  r.scales = {symmetric_scale(w.data(), w.size(), kWeightQMax)};
  quantize_rows(w.data(), w.size(), r.scales[0], kWeightQMax, r.q.data());
  return r;
}

QuantizedWeights quantize_weights_per_channel(const std::vector<float>& w, int out_channels, int32_t qmax) {
  LW_CHECK(out_channels > 0 && w.size() % size_t(out_channels) == 0 && qmax > 0 && qmax <= kWeightQMax);
  QuantizedWeights r;
  r.q.resize(w.size());
  const size_t row = w.size() / size_t(out_channels);
  for (int k = 0; k < out_channels; ++k) {
    r.scales.push_back(symmetric_scale(w.data() + k * row, row, qmax));
    quantize_rows(w.data() + k * row, row, r.scales.back(), qmax, r.q.data() + k * row);
  }
  return r;
}

QuantizedWeights quantize_weights(const std::vector<float>& w, int out_channels, bool per_channel, int32_t qmax) {
  return per_channel ? quantize_weights_per_channel(w, out_channels, qmax) : quantize_weights_per_tensor(w);
}

std::vector<int32_t> quantize_bias(const std::vector<float>& bias, int out_channels, float in_scale,
                                   const QuantizedWeights& w) {
  std::vector<int32_t> b(size_t(out_channels), 0);
  if (bias.empty()) return b;
  for (int k = 0; k < out_channels; ++k) {
    double v = std::nearbyint(double(bias[k]) / (double(in_scale) * w.scale(k)));
    b[k] = int32_t(std::clamp(v, double(std::numeric_limits<int32_t>::min()), double(std::numeric_limits<int32_t>::max())));
  }
  return b;
}

Status activation_bounds_int8(LayerKind act, QuantParams out, int8_t* lo, int8_t* hi) {
  *lo = int8_t(kInt8Min);
  *hi = int8_t(kInt8Max);
  switch (act) {
    case LayerKind::kInput: return Status::ok();
    case LayerKind::kRelu: *lo = quantize_value(0.f, out); return Status::ok();
    case LayerKind::kRelu6:
      *lo = quantize_value(0.f, out);
      *hi = quantize_value(6.f, out);
      return Status::ok();
    default: return unsupported(std::string("int8 fused activation must be relu or relu6, not ") + to_string(act));
  }
}

namespace {

// Requantises one int32 accumulator of output channel k; `plus` is added in output units
// before rounding (an absorbed residual).
int8_t requantize(int64_t acc, double multiplier, QuantParams out_q, int8_t lo, int8_t hi, double plus = 0) {
  double v = std::nearbyint(double(acc) * multiplier + plus) + out_q.zero_point;
  return int8_t(std::clamp(v, double(lo), double(hi)));
}

// What the conv and the FC reference share before their loops.
struct Int8Setup {
  QuantParams in_q;
  std::vector<int32_t> bias;  // in the accumulator's scale (input scale x weight scale)
  int8_t lo, hi;              // the fused activation's output range
};

// Checks the input, then makes the NCHW int8 output tensor `*out` with quantisation `out_q`.
Status begin_int8_reference(const Layer& l, const QuantizedWeights& w, const Tensor& x, QuantParams out_q, Tensor* out,
                            Int8Setup* s) {
  if (x.dtype() != DType::kI8 || x.layout() != Layout::kNCHW)
    return invalid_argument("failed to run int8 reference " + l.name + ": input must be NCHW int8");
  if (w.q.size() != l.weights.size())
    return invalid_argument("failed to run int8 reference " + l.name + ": weights of the wrong size");
  Shape os;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, {x.shape()}, &os));
  LW_RETURN_IF_ERROR(activation_bounds_int8(l.fused_activation, out_q, &s->lo, &s->hi));
  s->in_q = x.quant();
  s->bias = quantize_bias(l.bias, os.c, s->in_q.scale, w);
  *out = Tensor::create(os, DType::kI8, Layout::kNCHW);
  out->set_quant(out_q);
  return Status::ok();
}

}  // namespace

Status reference_conv_int8(const Layer& l, const QuantizedWeights& w, const Tensor& x, QuantParams out_q, Tensor* out,
                           const Tensor* residual) {
  Int8Setup s;
  LW_RETURN_IF_ERROR(begin_int8_reference(l, w, x, out_q, out, &s));
  const Shape& os = out->shape();
  if (residual && (residual->dtype() != DType::kI8 || residual->layout() != Layout::kNCHW || residual->shape() != os))
    return invalid_argument("failed to run int8 reference " + l.name + ": the residual must be NCHW int8 of the output's shape");
  const QuantParams rq = residual ? residual->quant() : QuantParams{};
  const double res_mult = double(rq.scale) / out_q.scale;
  const Shape& is = x.shape();
  const Window& win = l.window;
  const int cin_g = is.c / l.groups, cout_g = os.c / l.groups;
  for (int n = 0; n < os.n; ++n)
    for (int oc = 0; oc < os.c; ++oc) {
      const int g = oc / cout_g;
      const double mult = double(s.in_q.scale) * w.scale(oc) / out_q.scale;
      for (int oh = 0; oh < os.h; ++oh)
        for (int ow = 0; ow < os.w; ++ow) {
          int64_t acc = s.bias[oc];
          for (int ic = 0; ic < cin_g; ++ic)
            for (int kh = 0; kh < win.kh; ++kh) {
              int ih = oh * win.stride_h - win.pad_top + kh * win.dil_h;
              if (ih < 0 || ih >= is.h) continue;  // padding is real 0 = zero point: adds 0
              for (int kw = 0; kw < win.kw; ++kw) {
                int iw = ow * win.stride_w - win.pad_left + kw * win.dil_w;
                if (iw < 0 || iw >= is.w) continue;
                int32_t wq = w.q[((int64_t(oc) * cin_g + ic) * win.kh + kh) * win.kw + kw];
                acc += int64_t(wq) * (int32_t(x.i8()[x.offset(n, g * cin_g + ic, ih, iw)]) - s.in_q.zero_point);
              }
            }
          const int64_t at = out->offset(n, oc, oh, ow);
          const double plus = residual ? res_mult * (int32_t(residual->i8()[at]) - rq.zero_point) : 0.0;
          out->i8()[at] = requantize(acc, mult, out_q, s.lo, s.hi, plus);
        }
    }
  return Status::ok();
}

Status reference_fc_int8(const Layer& l, const QuantizedWeights& w, const Tensor& x, QuantParams out_q, Tensor* out) {
  Int8Setup s;
  LW_RETURN_IF_ERROR(begin_int8_reference(l, w, x, out_q, out, &s));
  const Shape& os = out->shape();
  const int64_t F = int64_t(x.shape().c) * x.shape().h * x.shape().w;  // NCHW flatten order
  for (int n = 0; n < os.n; ++n)
    for (int o = 0; o < os.c; ++o) {
      int64_t acc = s.bias[o];
      for (int64_t f = 0; f < F; ++f)
        acc += int64_t(w.q[o * F + f]) * (int32_t(x.i8()[n * F + f]) - s.in_q.zero_point);
      out->i8()[out->offset(n, o, 0, 0)] = requantize(acc, double(s.in_q.scale) * w.scale(o) / out_q.scale, out_q, s.lo, s.hi);
    }
  return Status::ok();
}

}  // namespace lw
