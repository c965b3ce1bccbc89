#include "tests/testers/conv_tester.h"

#include <cstdio>

namespace lw::testers {

Layer ConvTester::layer() const {
  Layer l;
  l.name = "conv";
  l.kind = LayerKind::kConv2d;
  l.window = win_;
  l.out_channels = k_;
  l.groups = groups_;
  l.has_bias = bias_;
  l.fused_activation = act_;
  fill_weights(l, {in_}, seed_);
  return l;
}

std::string ConvTester::describe() const {
  char buf[220];
  std::snprintf(buf, sizeof buf, "in %s k %d kernel %dx%d stride %d,%d pad %d,%d,%d,%d dil %d groups %d act %s",
                in_.to_string().c_str(), k_, win_.kh, win_.kw, win_.stride_h, win_.stride_w, win_.pad_top, win_.pad_left,
                win_.pad_bottom, win_.pad_right, win_.dil_h, groups_, to_string(act_));
  return buf;
}

Outcome ConvTester::Test(const Registry& r, const ImplDesc& desc, double tol) const {
  Layer l = layer();
  if (desc.fused_activation && l.fused_activation == LayerKind::kInput) l.fused_activation = LayerKind::kRelu6;
  std::mt19937_64 rng(seed_ + 1);
  INFO(describe());
  return check_case(r, desc, l, {random_tensor(in_, rng, non_negative_ ? 0.f : -1.f)}, tol, cache_.get());
}

std::vector<ConvTester> conv_shapes(int random_count, uint64_t seed, bool blocking) {
  using T = ConvTester;
  std::vector<ConvTester> v = {
      T().input(1, 3, 8, 8).out_channels(4).kernel(3).pad(1),
      T().input(1, 16, 7, 7).out_channels(32).kernel(1),                            // 1x1, full blocks of 16
      T().input(2, 5, 1, 1).out_channels(7).kernel(1),                              // 1x1 spatial, batch 2
      T().input(1, 20, 1, 1).out_channels(13).kernel(1),                            // 1x1 spatial, odd K
      T().input(1, 17, 9, 11).out_channels(13).kernel(3).stride(2).pad(0, 1, 1, 0), // odd, stride 2, asymmetric
      T().input(1, 5, 9, 11).out_channels(7).kernel(3).stride(2).pad(1),            // odd, stride 2
      T().input(1, 6, 10, 9).out_channels(5).kernel(3).stride(2).pad(0, 0, 1, 1),   // TF "same" style
      T().input(1, 9, 13, 10).out_channels(11).kernel(3).pad(1),                    // odd, 3x3 s1
      T().input(1, 6, 12, 12).out_channels(9).kernel(3).pad(1, 0, 2, 1),            // asymmetric pad
      T().input(1, 4, 8, 8).out_channels(6).kernel(3, 5).pad(2, 1, 0, 3),           // asymmetric kernel and pad
      T().input(1, 10, 6, 14).out_channels(6).kernel(1, 3).pad(0, 1, 0, 1),         // 1x3
      T().input(1, 12, 8, 8).out_channels(18).kernel(3).pad(1).groups(3),           // grouped
      T().input(1, 12, 10, 9).out_channels(12).kernel(3).pad(1).groups(12),         // depthwise
      T().input(1, 17, 10, 10).out_channels(17).kernel(3).pad(1).groups(17),        // depthwise, odd C
      T().input(1, 24, 9, 9).out_channels(24).kernel(3).stride(2).pad(1).groups(24).activation(LayerKind::kRelu6),
      T().input(1, 8, 9, 9).out_channels(16).kernel(5).pad(2).groups(8),            // depth multiplier 2
      T().input(1, 11, 10, 7).out_channels(9).kernel(5).pad(2),                     // dense 5x5, odd
      T().input(1, 3, 19, 19).out_channels(33).kernel(7).stride(2).pad(3),          // stem-like
      T().input(1, 8, 11, 11).out_channels(5).kernel(3).dilation(2).pad(2),         // dilated
      T().input(1, 24, 12, 12).out_channels(40).kernel(1).stride(2),                // strided 1x1, blocks of 8
      T().input(1, 9, 3, 3).out_channels(11).kernel(3),                             // 1x1 output
      T().input(1, 4, 3, 3).out_channels(3).kernel(3).pad(1).bias(false),           // tiny, tiles overhang
      T().input(1, 16, 1, 1).out_channels(16).kernel(3).pad(1),                     // 3x3 on 1x1 spatial
      T().input(2, 7, 6, 5).out_channels(9).kernel(3).pad(1).bias(false),           // batch 2, no bias
      T().input(1, 32, 14, 14).out_channels(40).kernel(3).pad(1).activation(LayerKind::kRelu),
      T().input(1, 10, 8, 8).out_channels(12).kernel(3).pad(1).activation(LayerKind::kRelu6),
      T().input(1, 10, 8, 8).out_channels(12).kernel(3).pad(1).activation(LayerKind::kHardSwish),
      T().input(1, 7, 6, 6).out_channels(5).kernel(3).pad(1).activation(LayerKind::kSigmoid),
  };
  const std::vector<ConvTester> sized_for_blocking = {
      // Large enough that Winograd cuts it into several blocks of tile rows, the last one
      // partial, in two images; channels off the vector width (21 = 16 + 5).
      T().input(2, 21, 99, 101).out_channels(19).kernel(3).pad(1, 0, 1, 2).activation(LayerKind::kRelu),
      // Past the GEMM's activation blocks (512 rows, 256 deep) with remainders, even per thread
      // of thread set 2: 1147 pixels, 270 and 297 deep; grouped with 260 channels per group.
      T().input(1, 270, 37, 31).out_channels(21).activation(LayerKind::kRelu),
      T().input(1, 33, 36, 34).out_channels(10).kernel(3).pad(1),
      T().input(2, 520, 9, 7).out_channels(26).groups(2).bias(false),
  };
  if (blocking) v.insert(v.end(), sized_for_blocking.begin(), sized_for_blocking.end());
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  // Mostly activations every backend fuses; hardswish and sigmoid some of the time.
  const LayerKind acts[] = {LayerKind::kInput, LayerKind::kInput, LayerKind::kRelu, LayerKind::kRelu6,
                            LayerKind::kHardSwish, LayerKind::kSigmoid};
  for (int i = 0; i < random_count; ++i) {
    int k = pick(0, 3) == 0 ? 1 : (pick(0, 4) == 0 ? 5 : 3);
    int g = pick(0, 4) == 0 ? pick(2, 3) : 1;
    int c = g * pick(1, 12), oc = g * pick(1, 10);
    if (pick(0, 5) == 0) g = c = oc = pick(1, 24);  // depthwise
    const int d = k > 1 && pick(0, 5) == 0 ? 2 : 1, span = (k - 1) * d + 1;
    const int h = pick(span, 17), w = pick(span, 17), s = pick(1, 2);
    T t;
    t.input(pick(1, 2), c, h, w).out_channels(oc).kernel(k).stride(s).dilation(d).groups(g).seed(seed + i);
    t.pad(pick(0, k / 2), pick(0, k / 2), pick(0, k / 2), pick(0, k / 2)).bias(pick(0, 1) == 1).activation(acts[pick(0, 5)]);
    v.push_back(t);
  }
  return v;
}

std::vector<Ran> test_convs(const Registry& r, const std::vector<ImplDesc>& descs, const std::vector<ConvTester>& shapes) {
  std::vector<Ran> ran(descs.size());
  for (size_t i = 0; i < descs.size(); ++i)
    for (const ConvTester& t : shapes) {
      Outcome o = t.Test(r, descs[i]);
      ran[i].supported += o.supported;
      ran[i].reshaped += o.reshaped;
    }
  return ran;
}

}  // namespace lw::testers
