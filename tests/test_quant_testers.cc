#include "tests/test_quant_testers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "libs/ref/reference.h"

namespace lw::qtest {

Tensor random_tensor(Shape s, std::mt19937_64& rng, float lo, float hi) {
  Tensor t = Tensor::create(s);
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < s.elements(); ++i) t.f32()[i] = d(rng);
  return t;
}

double max_rel_error(const Tensor& got, const Tensor& want) {
  Tensor g = to_layout(got, Layout::kNCHW);
  double err = 0, scale = 1e-6;
  for (int64_t i = 0; i < want.shape().elements(); ++i) {
    double d = std::fabs(double(g.f32()[i]) - want.f32()[i]);
    err = std::isnan(d) ? 1e30 : std::max(err, d);
    scale = std::max(scale, double(std::fabs(want.f32()[i])));
  }
  return err / scale;
}

namespace {

// create + setup + run of `desc` on inputs already in its layout / dtype; output poisoned
// and followed by guard bytes that must stay untouched (JIT kernels that store whole
// vectors past a blocked tensor's end were found this way).
Tensor run_impl(const Registry& r, const PrimitiveArgs& args, const std::vector<Tensor>& xs) {
  constexpr size_t kGuard = 4096;
  std::unique_ptr<Primitive> p;
  Status s = r.create(args, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  std::vector<const void*> ptrs;
  for (const Tensor& t : xs) ptrs.push_back(t.data());
  const size_t bytes = tensor_bytes(p->output_shape(), args.desc.dtype_out, args.desc.layout_out);
  Tensor backing = Tensor::create({1, 1, 1, int((bytes + kGuard) / 4 + 1)});
  auto* base = static_cast<unsigned char*>(backing.data());
  std::fill(base, base + bytes + kGuard, 0xff);
  Tensor out = Tensor::view(base, p->output_shape(), args.desc.dtype_out, args.desc.layout_out);
  std::vector<unsigned char> ws(p->workspace_bytes() + 1, 0xff);
  s = p->setup(ptrs, out.data(), ws.data());
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  s = p->run();
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  // Run twice: a primitive must be re-runnable with the same result (checked by callers
  // through the second output only).
  s = p->run();
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  size_t past = 0;
  for (size_t i = bytes; i < bytes + kGuard; ++i) past += base[i] != 0xff;
  INFO(args.desc.name(), " wrote ", past, " bytes past its ", bytes, "-byte output");
  CHECK(past == 0);
  return out.clone();
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& in) {
  std::vector<Shape> s;
  for (const Tensor& t : in) s.push_back(t.shape());
  return s;
}

}  // namespace

Tensor to_float_dtype(const Tensor& t, DType to) {
  if (t.dtype() == to) return t;
  Tensor y = Tensor::create(t.shape(), to, t.layout());
  const int64_t n = stored_elements(t.shape(), t.layout());
  for (int64_t i = 0; i < n; ++i) {
    if (to == DType::kBF16) y.bf16()[i] = f32_to_bf16(t.f32()[i]);
    else y.f32()[i] = bf16_to_f32(t.bf16()[i]);
  }
  return y;
}

double run_f32(const Registry& r, const ImplDesc& desc, const Layer& layer, const std::vector<Tensor>& in) {
  if (!r.supports(desc, layer, shapes_of(in)).is_ok()) return -1;
  std::vector<const Tensor*> ref_in;
  for (const Tensor& t : in) ref_in.push_back(&t);
  Tensor want;
  REQUIRE(reference_layer(layer, ref_in, &want).is_ok());
  std::vector<Tensor> xs;
  for (const Tensor& t : in) xs.push_back(to_float_dtype(to_layout(t, desc.layout_in), desc.dtype_in));
  Tensor got = to_float_dtype(run_impl(r, {desc, &layer, shapes_of(in), {}, {}}, xs), DType::kF32);
  REQUIRE(got.shape() == want.shape());
  return max_rel_error(got, want);
}

namespace {

QuantParams range_params(const Tensor& t) {
  auto [lo, hi] = std::minmax_element(t.f32(), t.f32() + t.shape().elements());
  return choose_quant_params(*lo, *hi);
}

bool per_channel(Algorithm a) {
  return a == Algorithm::kQc8 || a == Algorithm::kOnednnPerChannel || a == Algorithm::kQnnpackPerChannel;
}

}  // namespace

int run_int8(const Registry& r, const ImplDesc& desc, const Layer& layer, const Tensor& x_f32) {
  if (!r.supports(desc, layer, {x_f32.shape()}).is_ok()) return -1;
  Tensor xq = quantize_tensor(x_f32, range_params(x_f32));
  // Output params: the f32 layer on the dequantised input, as calibration would see it.
  Tensor xd = dequantize_tensor(xq), yf;
  REQUIRE(reference_layer(layer, {&xd}, &yf).is_ok());
  QuantParams out_q = range_params(yf);
  QuantizedWeights w = per_channel(desc.algorithm) ? quantize_weights_per_channel(layer.weights, layer.out_channels)
                                                   : quantize_weights_per_tensor(layer.weights);
  Tensor want;
  Status s = layer.kind == LayerKind::kConv2d ? reference_conv_int8(layer, w, xq, out_q, &want)
                                              : reference_fc_int8(layer, w, xq, out_q, &want);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  Tensor got = to_layout(run_impl(r, {desc, &layer, {x_f32.shape()}, {xq.quant()}, out_q}, {to_layout(xq, desc.layout_in)}),
                         Layout::kNCHW);
  REQUIRE(got.shape() == want.shape());
  int worst = 0;
  for (int64_t i = 0; i < want.shape().elements(); ++i) worst = std::max(worst, std::abs(int(got.i8()[i]) - int(want.i8()[i])));
  return worst;
}

Layer ConvTester::layer() const {
  Layer l;
  l.name = "conv";
  l.kind = LayerKind::kConv2d;
  l.window = win_;
  l.out_channels = k_;
  l.groups = groups_;
  l.has_bias = bias_;
  l.fused_activation = act_;
  std::mt19937_64 rng(seed_);
  std::uniform_real_distribution<float> d(-0.5f, 0.5f);
  l.weights.resize(weight_count(l, {in_}));
  for (float& x : l.weights) x = d(rng);
  if (bias_) {
    l.bias.resize(k_);
    for (float& x : l.bias) x = d(rng);
  }
  return l;
}

std::string ConvTester::describe() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "in %s k %d kernel %dx%d stride %d,%d pad %d,%d,%d,%d dil %d groups %d act %s",
                in_.to_string().c_str(), k_, win_.kh, win_.kw, win_.stride_h, win_.stride_w, win_.pad_top, win_.pad_left,
                win_.pad_bottom, win_.pad_right, win_.dil_h, groups_, to_string(act_));
  return buf;
}

bool ConvTester::Test(const Registry& r, const ImplDesc& desc, double f32_tol) const {
  Layer l = layer();
  if (desc.fused_activation && l.fused_activation == LayerKind::kInput) l.fused_activation = LayerKind::kRelu6;
  std::mt19937_64 rng(seed_ + 1);
  Tensor x = random_tensor(in_, rng);
  INFO(desc.name(), ": ", describe());
  if (desc.dtype_in == DType::kI8) {
    int steps = run_int8(r, desc, l, x);
    if (steps < 0) return false;
    CHECK(steps <= 1);
    return true;
  }
  double e = run_f32(r, desc, l, {x});
  if (e < 0) return false;
  if (desc.dtype_in == DType::kBF16) f32_tol = std::max(f32_tol, kBf16Tolerance);
  INFO("relative error ", e);
  CHECK(e <= f32_tol);
  return true;
}

std::vector<ConvTester> conv_shapes(int random_count, uint64_t seed) {
  using T = ConvTester;
  std::vector<ConvTester> v = {
      T().input(1, 3, 8, 8).out_channels(4).kernel(3).pad(1),
      T().input(1, 16, 7, 7).out_channels(24).kernel(1),                          // 1x1
      T().input(1, 5, 9, 11).out_channels(7).kernel(3).stride(2).pad(1),          // odd, stride 2
      T().input(1, 6, 10, 9).out_channels(5).kernel(3).stride(2).pad(0, 0, 1, 1), // TF "same" style
      T().input(1, 4, 8, 8).out_channels(6).kernel(3, 5).pad(2, 1, 0, 3),        // asymmetric
      T().input(1, 12, 9, 9).out_channels(18).kernel(3).pad(1).groups(3),         // grouped
      T().input(1, 17, 10, 10).out_channels(17).kernel(3).pad(1).groups(17),      // depthwise, odd C
      T().input(1, 32, 14, 14).out_channels(32).kernel(3).stride(2).pad(1).groups(32),
      T().input(1, 8, 9, 9).out_channels(16).kernel(5).pad(2).groups(8),          // depth multiplier 2
      T().input(1, 20, 1, 1).out_channels(13).kernel(1),                          // 1x1 spatial
      T().input(1, 9, 3, 3).out_channels(11).kernel(3),                           // 1x1 output
      T().input(2, 7, 6, 5).out_channels(9).kernel(3).pad(1).bias(false),          // batch 2, no bias
      T().input(1, 6, 11, 11).out_channels(10).kernel(3).dilation(2).pad(2),      // dilation
      T().input(1, 3, 15, 15).out_channels(33).kernel(7).stride(2).pad(3),        // stem-like
      T().input(1, 24, 12, 12).out_channels(40).kernel(1).stride(2),              // strided 1x1
      T().input(1, 10, 8, 8).out_channels(12).kernel(3).pad(1).activation(LayerKind::kRelu),
      T().input(1, 10, 8, 8).out_channels(12).kernel(3).pad(1).activation(LayerKind::kRelu6),
  };
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < random_count; ++i) {
    int k = pick(1, 3) * 2 - 1, s = pick(1, 2), g = pick(0, 3) == 0 ? pick(2, 4) : 1;
    int cg = pick(1, 9), kg = pick(1, 9);
    if (pick(0, 4) == 0) cg = kg = 1, g = pick(3, 24);  // depthwise
    int h = pick(k, 17), w = pick(k, 17);
    T t;
    t.input(pick(1, 2), cg * g, h, w).out_channels(kg * g).kernel(k).stride(s).groups(g).seed(seed + i);
    t.pad(pick(0, k / 2), pick(0, k / 2), pick(0, k / 2), pick(0, k / 2)).bias(pick(0, 1) == 1);
    v.push_back(t);
  }
  return v;
}

Layer fc_layer(Shape in, int out, bool bias, LayerKind act, uint64_t seed) {
  Layer l;
  l.name = "fc";
  l.kind = LayerKind::kFullyConnected;
  l.out_channels = out;
  l.has_bias = bias;
  l.fused_activation = act;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-0.5f, 0.5f);
  l.weights.resize(weight_count(l, {in}));
  for (float& x : l.weights) x = d(rng);
  if (bias) {
    l.bias.resize(out);
    for (float& x : l.bias) x = d(rng);
  }
  return l;
}

std::vector<ImplDesc> descriptors(const Registry& r, Library lib, LayerKind op) {
  std::vector<ImplDesc> v;
  for (const ImplEntry& e : r.entries())
    if (e.desc.library == lib && e.desc.op == op) v.push_back(e.desc);
  return v;
}

}  // namespace lw::qtest
