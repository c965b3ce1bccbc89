/// \file
/// ConvTester (XNNPACK style: `ConvTester().kernel(3).stride(2).groups(8).Test(r, desc)`)
/// and the one list of awkward conv shapes every backend's conv tests run.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tests/testers/tester.h"

namespace lw::testers {

class ConvTester {
 public:
  ConvTester& input(int n, int c, int h, int w) { in_ = {n, c, h, w}; return fresh(); }
  ConvTester& out_channels(int k) { k_ = k; return fresh(); }
  ConvTester& kernel(int kh, int kw) { win_.kh = kh; win_.kw = kw; return fresh(); }
  ConvTester& kernel(int k) { return kernel(k, k); }
  ConvTester& stride(int s) { win_.stride_h = win_.stride_w = s; return fresh(); }
  ConvTester& pad(int t, int l, int b, int r) { win_.pad_top = t; win_.pad_left = l; win_.pad_bottom = b; win_.pad_right = r; return fresh(); }
  ConvTester& pad(int p) { return pad(p, p, p, p); }
  ConvTester& dilation(int d) { win_.dil_h = win_.dil_w = d; return fresh(); }
  ConvTester& groups(int g) { groups_ = g; return fresh(); }
  ConvTester& bias(bool b) { bias_ = b; return fresh(); }
  ConvTester& activation(LayerKind a) { act_ = a; return fresh(); }
  ConvTester& seed(uint64_t s) { seed_ = s; return fresh(); }
  /// Input in [0, 1) (a relu's output: int8 zero point -128) instead of [-1, 1).
  ConvTester& non_negative(bool on) { non_negative_ = on; return fresh(); }

  /// The conv layer with seeded random weights in [-0.5, 0.5].
  Layer layer() const;
  const Shape& input_shape() const { return in_; }
  LayerKind activation() const { return act_; }
  bool symmetric_padding() const { return win_.pad_top == win_.pad_bottom && win_.pad_left == win_.pad_right; }
  std::string describe() const;
  /// check_case of `desc` on this shape (a `fused` descriptor absorbs relu6 where the layer
  /// has no activation of its own); tol < 0 means tolerance(desc). References are computed
  /// once per shape and shared by every descriptor tested on it.
  Outcome Test(const Registry& r, const ImplDesc& desc, double tol = -1) const;

 private:
  Shape in_{1, 3, 8, 8};
  int k_ = 4, groups_ = 1;
  Window win_;
  bool bias_ = true;
  LayerKind act_ = LayerKind::kInput;
  uint64_t seed_ = 1;
  bool non_negative_ = false;
  // Shared by copies of one finished builder; every setter starts a new one.
  std::shared_ptr<ReferenceCache> cache_ = std::make_shared<ReferenceCache>();
  ConvTester& fresh() {
    cache_ = std::make_shared<ReferenceCache>();
    return *this;
  }
};

/// The awkward conv shapes (1x1, stride 2, odd sizes, channels off the vector widths,
/// asymmetric padding, grouped, depthwise, dilation, 1x1 spatial, batch 2, fused
/// activations), then four sized for blocking (Winograd tile rows and GEMM panels with
/// remainders) unless `blocking` is false, then `random_count` seeded random ones. The
/// blocking four serve the blocked kernels of native and openblas; they cost the naive
/// references most (test_quant's int8 check: 1.9 s with them, 0.01 s without), so the
/// other backends' tests, which never had them, leave them out.
std::vector<ConvTester> conv_shapes(int random_count, uint64_t seed, bool blocking = true);

/// How many shapes one implementation ran, and how many of them it also reshaped.
struct Ran {
  int supported = 0, reshaped = 0;
};
/// Tests each of `descs` on every shape; per descriptor (same order), what it ran.
std::vector<Ran> test_convs(const Registry& r, const std::vector<ImplDesc>& descs, const std::vector<ConvTester>& shapes);

}  // namespace lw::testers
