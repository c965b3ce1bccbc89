// Builder-style testers for the xnnpack and torch backends: a conv / FC / layer is built
// with seeded random weights, run through a registered implementation, and compared with
// the f32 reference executor (relative error max|a-b| / max|ref|) or, for int8, with the
// naive int8 reference of libs/quant (difference in quantisation steps).
// (The prims branch has a similar ConvTester; this one adds the int8 path.)
#pragma once
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "libs/ops/registry.h"
#include "libs/quant/quant.h"

namespace lw::qtest {

Tensor random_tensor(Shape s, std::mt19937_64& rng, float lo = -1.f, float hi = 1.f);
/// max |got - want| / max |want|, both read in logical NCHW order.
double max_rel_error(const Tensor& got, const Tensor& want);

/// bf16 vs the f32 reference, relative to max|ref|. bf16 keeps 8 significant bits: rounding
/// to nearest is off by at most u = 2^-9 relative. The input and the weights are each
/// rounded once (2u per product, accumulated in f32 by oneDNN) and the output once more
/// (u): 3u = 0.0059 of the largest term for a layer whose output is not cancelled out. On
/// random data a sum of K products of random sign has errors that grow like the sum
/// itself (both ~ sqrt(K)), so 3u of max|ref| holds with a margin of ~2.5x: 2^-6.
constexpr double kBf16Tolerance = 1.0 / 64;

/// Copy of an f32 tensor as bf16 (round to nearest even) or back, same layout.
Tensor to_float_dtype(const Tensor& t, DType to);

/// f32 (or bf16: inputs rounded to bf16, output read back as f32): error vs
/// reference_layer, or -1 when `desc` does not support the layer.
double run_f32(const Registry& r, const ImplDesc& desc, const Layer& layer, const std::vector<Tensor>& in);
/// int8 conv2d / fully-connected: largest |q_impl - q_ref| in quantisation steps, or -1 when
/// unsupported. Input params come from the input's range, output params from the f32
/// output range of the dequantised input (as calibration would choose them).
int run_int8(const Registry& r, const ImplDesc& desc, const Layer& layer, const Tensor& x_f32);

class ConvTester {
 public:
  ConvTester& input(int n, int c, int h, int w) { in_ = {n, c, h, w}; return *this; }
  ConvTester& out_channels(int k) { k_ = k; return *this; }
  ConvTester& kernel(int kh, int kw) { win_.kh = kh; win_.kw = kw; return *this; }
  ConvTester& kernel(int k) { return kernel(k, k); }
  ConvTester& stride(int s) { win_.stride_h = win_.stride_w = s; return *this; }
  ConvTester& pad(int t, int l, int b, int r) { win_.pad_top = t; win_.pad_left = l; win_.pad_bottom = b; win_.pad_right = r; return *this; }
  ConvTester& pad(int p) { return pad(p, p, p, p); }
  ConvTester& dilation(int d) { win_.dil_h = win_.dil_w = d; return *this; }
  ConvTester& groups(int g) { groups_ = g; return *this; }
  ConvTester& bias(bool b) { bias_ = b; return *this; }
  ConvTester& activation(LayerKind a) { act_ = a; return *this; }
  ConvTester& seed(uint64_t s) { seed_ = s; return *this; }

  Layer layer() const;
  const Shape& input_shape() const { return in_; }
  std::string describe() const;
  /// Checks `desc` on this shape (f32 within tol, bf16 within kBf16Tolerance, int8 within
  /// one step); returns whether
  /// the shape was supported.
  bool Test(const Registry& r, const ImplDesc& desc, double f32_tol = 1e-4) const;

 private:
  Shape in_{1, 3, 8, 8};
  int k_ = 4, groups_ = 1;
  Window win_;
  bool bias_ = true;
  LayerKind act_ = LayerKind::kInput;
  uint64_t seed_ = 1;
};

/// The awkward conv shapes (1x1, stride 2, odd sizes, asymmetric padding, groups,
/// depthwise, channel counts off 4/8/16, 1x1 spatial, dilation, batch 2) then
/// `random_count` seeded random ones.
std::vector<ConvTester> conv_shapes(int random_count, uint64_t seed);

/// Fully-connected on N x C x H x W inputs (H, W > 1 exercises the flatten order).
Layer fc_layer(Shape in, int out, bool bias, LayerKind act, uint64_t seed);

/// Descriptor of every registered implementation of `lib` for `op`.
std::vector<ImplDesc> descriptors(const Registry& r, Library lib, LayerKind op);

}  // namespace lw::qtest
