// Convolution shapes of ResNet-50 (r50_*) and MobileNetV2 (mv2_*), batch 1, shared by the
// int8 benchmarks (bench_int8, bench_onednn_u8) so their figures line up shape by shape.
#pragma once

namespace lw_bench {

struct ConvShape {
  const char* name;
  int c, h, w, k, kernel, stride, groups;
};

inline constexpr ConvShape kInt8ConvShapes[] = {
    {"r50_conv2_3x3", 64, 56, 56, 64, 3, 1, 1},     {"r50_conv2_1x1_expand", 64, 56, 56, 256, 1, 1, 1},
    {"r50_conv3_3x3_s2", 128, 56, 56, 128, 3, 2, 1}, {"r50_conv5_3x3", 512, 7, 7, 512, 3, 1, 1},
    {"mv2_expand_1x1", 24, 56, 56, 144, 1, 1, 1},    {"mv2_dw_3x3", 144, 56, 56, 144, 3, 1, 144},
    {"mv2_dw_3x3_s2", 144, 56, 56, 144, 3, 2, 144},  {"mv2_project_1x1", 144, 28, 28, 32, 1, 1, 1},
};

}  // namespace lw_bench
