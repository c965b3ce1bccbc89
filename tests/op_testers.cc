#include "tests/op_testers.h"

namespace lw::testing {

std::vector<ConvTester> conv_shapes(int random_count, uint64_t seed) {
  std::vector<ConvTester> v;
  v.push_back(ConvTester().input(1, 17, 9, 11).out_channels(13).kernel(3).stride(2).pad(0, 1, 1, 0));
  v.push_back(ConvTester().input(1, 16, 7, 7).out_channels(32).kernel(1));                       // 1x1
  v.push_back(ConvTester().input(2, 5, 1, 1).out_channels(7).kernel(1));                         // 1x1 spatial, batch 2
  v.push_back(ConvTester().input(1, 9, 13, 10).out_channels(11).kernel(3).pad(1));               // odd, 3x3 s1
  v.push_back(ConvTester().input(1, 6, 12, 12).out_channels(9).kernel(3).pad(1, 0, 2, 1));       // asymmetric pad
  v.push_back(ConvTester().input(1, 12, 10, 9).out_channels(12).kernel(3).pad(1).groups(12));    // depthwise
  v.push_back(ConvTester().input(1, 24, 9, 9).out_channels(24).kernel(3).stride(2).pad(1).groups(24).activation(LayerKind::kRelu6));
  v.push_back(ConvTester().input(1, 12, 8, 8).out_channels(18).kernel(3).pad(1).groups(3));      // grouped
  v.push_back(ConvTester().input(1, 3, 23, 23).out_channels(8).kernel(7).stride(2).pad(3));      // stem-like
  v.push_back(ConvTester().input(1, 8, 11, 11).out_channels(5).kernel(3).dilation(2).pad(2));    // dilated
  v.push_back(ConvTester().input(1, 10, 6, 14).out_channels(6).kernel(1, 3).pad(0, 1, 0, 1));    // 1x3
  v.push_back(ConvTester().input(1, 4, 3, 3).out_channels(3).kernel(3).pad(1).bias(false));      // tiny, tiles overhang
  v.push_back(ConvTester().input(1, 16, 1, 1).out_channels(16).kernel(3).pad(1));                // 3x3 on 1x1 spatial
  v.push_back(ConvTester().input(1, 32, 14, 14).out_channels(40).kernel(3).pad(1).activation(LayerKind::kRelu));
  // Large enough that Winograd cuts it into several blocks of tile rows, the last one
  // partial, in two images; channels off the vector width (21 = 16 + 5).
  v.push_back(ConvTester().input(2, 21, 99, 101).out_channels(19).kernel(3).pad(1, 0, 1, 2).activation(LayerKind::kRelu));
  // Past the GEMM's activation blocks (512 rows, 256 deep) with remainders, even per thread
  // of thread set 2: 1147 pixels, 270 and 297 deep; grouped with 260 channels per group.
  v.push_back(ConvTester().input(1, 270, 37, 31).out_channels(21).activation(LayerKind::kRelu));
  v.push_back(ConvTester().input(1, 33, 36, 34).out_channels(10).kernel(3).pad(1));
  v.push_back(ConvTester().input(2, 520, 9, 7).out_channels(26).groups(2).bias(false));
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  for (int i = 0; i < random_count; ++i) {
    int k = pick(0, 3) == 0 ? 1 : (pick(0, 4) == 0 ? 5 : 3);
    int g = pick(0, 4) == 0 ? pick(2, 3) : 1;
    int c = g * pick(1, 12), oc = g * pick(1, 10);
    bool dw = pick(0, 5) == 0;
    if (dw) { g = c = oc = pick(1, 24); }
    int h = pick(k, 17), w = pick(k, 17), s = pick(1, 2);
    int pt = pick(0, k / 2), pl = pick(0, k / 2), pb = pick(0, k / 2), pr = pick(0, k / 2);
    const LayerKind acts[] = {LayerKind::kInput, LayerKind::kRelu, LayerKind::kHardSwish, LayerKind::kSigmoid};
    v.push_back(ConvTester().input(pick(1, 2), c, h, w).out_channels(oc).kernel(k).stride(s).pad(pt, pl, pb, pr)
                    .groups(g).bias(pick(0, 1)).activation(acts[pick(0, 3)]).seed(seed + i));
  }
  return v;
}

}  // namespace lw::testing
