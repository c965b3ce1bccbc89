#include "libs/zoo/zoo_fmnist.h"

#include <algorithm>
#include <cmath>

#include "libs/zoo/zoo_blocks.h"
#include "libs/zoo/zoo_builder.h"

namespace lw {
namespace {

using namespace zoo_blocks;

constexpr LayerKind kRelu = LayerKind::kRelu;
constexpr LayerKind kHSwish = LayerKind::kHardSwish;

// The small members keep full resolution in the stem (3x3, stride 1) as CIFAR-style
// networks do: 32x32 inputs cannot afford the ImageNet stems' 4x early downsampling.
Shape input_of(const ZooOptions& o) { return Shape{o.input.n, kFmnistChannels, kFmnistSide, kFmnistSide}; }
int scaled(int c, const ZooOptions& o) { return std::max(1, int(std::lround(c * o.width))); }

// ResNet with one basic block per stage, widths 16-32-64 (ResNet-8 in the CIFAR family).
Network fmnist_resnet(const ZooOptions& o) {
  NetBuilder b("fmnist_resnet", input_of(o));
  b.scope("stem");
  int x = b.conv_bn(0, scaled(16, o), 3, 1, 1, kRelu, "conv1");
  for (int stage = 0; stage < 3; ++stage) {
    b.scope("layer" + std::to_string(stage + 1) + ".0");
    x = basic_block(b, x, scaled(16 << stage, o), stage == 0 ? 1 : 2);
  }
  b.scope("head");
  b.fc(b.flatten(b.global_avg_pool(x)), kFmnistClasses);
  return b.finish();
}

// MobileNetV2 rows (expansion, channels, repeats, stride) cut to 32x32 -> 4x4.
Network fmnist_mobilenetv2(const ZooOptions& o) {
  NetBuilder b("fmnist_mobilenetv2", input_of(o));
  return mobilenetv2_net(b, 1, divisible(16 * o.width), {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 2, 2}, {6, 64, 2, 2}},
                         o.width, divisible(256 * o.width), kFmnistClasses);
}

// The first six bneck rows of MobileNetV3-Small (SE, hardswish), 32x32 -> 4x4.
Network fmnist_mobilenetv3(const ZooOptions& o) {
  const LayerKind RE = kRelu, HS = kHSwish;
  const std::vector<V3Block> cfg = {{3, 16, 16, true, RE, 2}, {3, 72, 24, false, RE, 2}, {3, 88, 24, false, RE, 1},
                                    {5, 96, 40, true, HS, 2}, {5, 240, 40, true, HS, 1}, {5, 120, 48, true, HS, 1}};
  NetBuilder b("fmnist_mobilenetv3", input_of(o));
  return mobilenetv3_net(b, 1, cfg, o.width, divisible(288 * o.width), divisible(256 * o.width), kFmnistClasses);
}

// SqueezeNet 1.1 layout (ceil-mode max pools between fire pairs, conv classifier + GAP),
// with half the fire widths and a stride-1 3x3 stem.
Network fmnist_squeezenet(const ZooOptions& o) {
  NetBuilder b("fmnist_squeezenet", input_of(o));
  b.scope("features");
  int x = conv_relu(b, 0, scaled(32, o), 3, 1, 1);
  x = b.max_pool(x, 3, 2, 0, true);
  x = fire_module(b, x, "fire2", scaled(16, o), scaled(32, o), scaled(32, o));
  x = fire_module(b, x, "fire3", scaled(16, o), scaled(32, o), scaled(32, o));
  b.scope("features");
  x = b.max_pool(x, 3, 2, 0, true);
  x = fire_module(b, x, "fire4", scaled(32, o), scaled(64, o), scaled(64, o));
  x = fire_module(b, x, "fire5", scaled(32, o), scaled(64, o), scaled(64, o));
  b.scope("features");
  x = b.max_pool(x, 3, 2, 0, true);
  x = fire_module(b, x, "fire6", scaled(48, o), scaled(96, o), scaled(96, o));
  x = fire_module(b, x, "fire7", scaled(48, o), scaled(96, o), scaled(96, o));
  b.scope("classifier");
  x = conv_relu(b, x, kFmnistClasses, 1, 1, 0);
  b.flatten(b.global_avg_pool(x));
  return b.finish();
}

}  // namespace

const std::vector<ZooEntry>& fmnist_models() {
  static const std::vector<ZooEntry> kModels = {
      {"fmnist_resnet", "Fashion-MNIST ResNet: 3x3 stem, one basic block per stage (16-32-64)", fmnist_resnet},
      {"fmnist_mobilenetv2", "Fashion-MNIST MobileNetV2: 7 inverted residuals to 64 channels", fmnist_mobilenetv2},
      {"fmnist_mobilenetv3", "Fashion-MNIST MobileNetV3: 6 bnecks of V3-Small (SE, hardswish)", fmnist_mobilenetv3},
      {"fmnist_squeezenet", "Fashion-MNIST SqueezeNet 1.1 layout, 6 fire modules at half width", fmnist_squeezenet},
  };
  return kModels;
}

}  // namespace lw
