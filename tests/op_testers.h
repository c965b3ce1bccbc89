// Builder-style testers (XNNPACK style): build one layer, run a registered implementation
// on a seeded random input and compare with the reference executor (libs/ref).
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "libs/ops/registry.h"
#include "libs/ref/reference.h"

namespace lw::testing {

inline void fill_uniform(std::vector<float>& v, std::mt19937_64& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& x : v) x = d(rng);
}

inline Tensor random_tensor(Shape s, std::mt19937_64& rng) {
  Tensor t = Tensor::create(s);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (int64_t i = 0; i < s.elements(); ++i) t.f32()[i] = d(rng);
  return t;
}

/// max |got - want| / max(|want|) over all elements (both compared in NCHW order).
inline double max_rel_error(const Tensor& got, const Tensor& want) {
  Tensor g = to_layout(got, Layout::kNCHW);
  double err = 0, scale = 1e-6;
  for (int64_t i = 0; i < want.shape().elements(); ++i) {
    const double d = std::fabs(double(g.f32()[i]) - want.f32()[i]);
    if (std::isnan(d)) return d;  // std::max would drop it, hiding outputs left at the NaN poison
    err = std::max(err, d);
    scale = std::max(scale, double(std::fabs(want.f32()[i])));
  }
  return err / scale;
}

/// Runs `desc` on `layer` with NCHW f32 inputs `in` (converted to desc's layout); returns
/// the max relative error vs reference_layer, or -1 when the descriptor is unsupported.
inline double run_against_reference(const Registry& r, const ImplDesc& desc, const Layer& layer,
                                     const std::vector<Tensor>& in) {
  std::vector<Shape> shapes;
  std::vector<const Tensor*> ref_in;
  for (const Tensor& t : in) {
    shapes.push_back(t.shape());
    ref_in.push_back(&t);
  }
  if (!r.supports(desc, layer, shapes).is_ok()) return -1;
  Tensor want;
  REQUIRE(reference_layer(layer, ref_in, &want).is_ok());
  std::unique_ptr<Primitive> p;
  Status s = r.create({desc, &layer, shapes, {}, {}}, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(p->output_shape() == want.shape());
  std::vector<Tensor> xs;
  std::vector<const void*> ptrs;
  for (const Tensor& t : in) xs.push_back(to_layout(t, desc.layout_in));
  for (const Tensor& t : xs) ptrs.push_back(t.data());
  Tensor out = Tensor::create(p->output_shape(), DType::kF32, desc.layout_out);
  // Poison the output and workspace so kernels that skip elements are caught.
  std::fill(out.f32(), out.f32() + out.shape().elements(), std::nanf(""));
  std::vector<float> ws(p->workspace_bytes() / sizeof(float) + 1, std::nanf(""));
  REQUIRE(p->setup(ptrs, out.data(), ws.data()).is_ok());
  REQUIRE(p->run().is_ok());
  double e = max_rel_error(out, want);
  return std::isnan(e) ? 1e30 : e;
}

class ConvTester {
 public:
  ConvTester& input(int n, int c, int h, int w) { in_ = {n, c, h, w}; return *this; }
  ConvTester& out_channels(int k) { k_ = k; return *this; }
  ConvTester& kernel(int kh, int kw) { win_.kh = kh; win_.kw = kw; return *this; }
  ConvTester& kernel(int k) { return kernel(k, k); }
  ConvTester& stride(int s) { win_.stride_h = win_.stride_w = s; return *this; }
  ConvTester& stride(int sh, int sw) { win_.stride_h = sh; win_.stride_w = sw; return *this; }
  ConvTester& pad(int t, int l, int b, int r) { win_.pad_top = t; win_.pad_left = l; win_.pad_bottom = b; win_.pad_right = r; return *this; }
  ConvTester& pad(int p) { return pad(p, p, p, p); }
  ConvTester& dilation(int d) { win_.dil_h = win_.dil_w = d; return *this; }
  ConvTester& groups(int g) { groups_ = g; return *this; }
  ConvTester& bias(bool b) { bias_ = b; return *this; }
  ConvTester& activation(LayerKind a) { act_ = a; return *this; }
  ConvTester& seed(uint64_t s) { seed_ = s; return *this; }

  Layer layer() const {
    Layer l;
    l.name = "conv";
    l.kind = LayerKind::kConv2d;
    l.window = win_;
    l.out_channels = k_;
    l.groups = groups_;
    l.has_bias = bias_;
    l.fused_activation = act_;
    std::mt19937_64 rng(seed_);
    l.weights.resize(weight_count(l, {in_}));
    fill_uniform(l.weights, rng, -0.5f, 0.5f);
    if (bias_) {
      l.bias.resize(k_);
      fill_uniform(l.bias, rng, -0.5f, 0.5f);
    }
    return l;
  }
  std::string describe() const {
    char buf[200];
    std::snprintf(buf, sizeof buf, "in %s k %d kernel %dx%d stride %d,%d pad %d,%d,%d,%d dil %d groups %d",
                  in_.to_string().c_str(), k_, win_.kh, win_.kw, win_.stride_h, win_.stride_w, win_.pad_top, win_.pad_left,
                  win_.pad_bottom, win_.pad_right, win_.dil_h, groups_);
    return buf;
  }
  /// Error vs reference, or -1 when desc does not support this shape.
  double Run(const Registry& r, const ImplDesc& desc) const {
    Layer l = layer();
    if (desc.fused_activation && l.fused_activation == LayerKind::kInput) l.fused_activation = LayerKind::kRelu6;
    std::mt19937_64 rng(seed_ + 1);
    return run_against_reference(r, desc, l, {random_tensor(in_, rng)});
  }
  /// Checks the error bound; returns whether the shape was supported.
  bool Test(const Registry& r, const ImplDesc& desc, double tol) const {
    double e = Run(r, desc);
    if (e < 0) return false;
    INFO(desc.name(), ": ", describe(), " error ", e);
    CHECK(e <= tol);
    return true;
  }

 private:
  Shape in_{1, 3, 8, 8};
  int k_ = 4, groups_ = 1;
  Window win_;
  bool bias_ = true;
  LayerKind act_ = LayerKind::kInput;
  uint64_t seed_ = 1;
};

/// f32 tolerances of the issue: 1e-4 relative, Winograd 1e-3.
inline double conv_tolerance(const ImplDesc& d) {
  const Algorithm a = d.algorithm;
  return a == Algorithm::kWinogradF2 || a == Algorithm::kWinogradF4 || a == Algorithm::kWinograd ? 1e-3 : 1e-4;
}

/// Seeded random conv shapes, with the awkward cases listed explicitly first.
std::vector<ConvTester> conv_shapes(int random_count, uint64_t seed);

}  // namespace lw::testing
