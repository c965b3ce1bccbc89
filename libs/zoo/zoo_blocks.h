/// \file
/// Building blocks shared by the ImageNet-shaped zoo (zoo.cc) and its Fashion-MNIST members
/// (zoo_fmnist.cc), so both families have the same block shapes. Internal to libs/zoo/.
#pragma once
#include <string>
#include <vector>

#include "libs/zoo/zoo_builder.h"

namespace lw::zoo_blocks {

/// torchvision's _make_divisible: round to a multiple of 8, never more than 10 % down.
int divisible(float v, int divisor = 8);
/// conv (with bias) + ReLU: AlexNet, VGG, GoogLeNet, SqueezeNet.
int conv_relu(NetBuilder& b, int x, int c, int k, int s = 1, int pad = -1, const std::string& what = "conv");
/// ResNet basic block (two 3x3) and bottleneck (1x1, 3x3 with the stride, 1x1 x4).
int basic_block(NetBuilder& b, int x, int c, int stride);
int bottleneck(NetBuilder& b, int x, int c, int stride);
/// SqueezeNet fire module: squeeze 1x1, then expand 1x1 and 3x3 concatenated.
int fire_module(NetBuilder& b, int x, const std::string& name, int squeeze, int expand1, int expand3);
/// MobileNetV2 inverted residual (ReLU6, residual when shapes allow).
int inverted_residual(NetBuilder& b, int x, int out, int stride, int expand);
/// Squeeze-excite as in MobileNetV3 (1x1 convs, ReLU, hard sigmoid, channel scale).
int squeeze_excite(NetBuilder& b, int x);

/// One MobileNetV3 bneck row: kernel, expansion channels, output channels, SE, activation, stride.
struct V3Block {
  int k, expand, out;
  bool se;
  LayerKind act;
  int stride;
};
int v3_block(NetBuilder& b, int x, const V3Block& r, float width);

/// One MobileNetV2 row of the paper's table: expansion, output channels, repeats, stride of
/// the row's first block.
struct V2Row {
  int expand, out, repeats, stride;
};

/// The MobileNets of both families, stem to classifier, with torchvision's scopes (features.i,
/// classifier); the ImageNet members use stem stride 2, the 32x32 ones stride 1. `stem`,
/// `last` and `head` are channel counts as built; the rows are scaled by `width` here.
Network mobilenetv2_net(NetBuilder& b, int stem_stride, int stem, const std::vector<V2Row>& rows, float width,
                        int last, int classes);
Network mobilenetv3_net(NetBuilder& b, int stem_stride, const std::vector<V3Block>& rows, float width, int last,
                        int head, int classes);

}  // namespace lw::zoo_blocks
