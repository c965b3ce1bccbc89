#include "libs/zoo/zoo_blocks.h"

#include <algorithm>

namespace lw::zoo_blocks {
namespace {
constexpr LayerKind kNone = LayerKind::kInput;
constexpr LayerKind kRelu = LayerKind::kRelu;
constexpr LayerKind kRelu6 = LayerKind::kRelu6;
}  // namespace

int divisible(float v, int divisor) {
  int r = std::max(divisor, int(v + divisor / 2.f) / divisor * divisor);
  if (r < 0.9f * v) r += divisor;
  return r;
}

int conv_relu(NetBuilder& b, int x, int c, int k, int s, int pad, const std::string& what) {
  return b.act(b.conv(x, c, k, s, pad, 1, true, what), kRelu);
}

int basic_block(NetBuilder& b, int x, int c, int stride) {
  int y = b.conv_bn(x, c, 3, stride, 1, kRelu, "conv1");
  y = b.conv_bn(y, c, 3, 1, 1, kNone, "conv2");
  int sc = (stride != 1 || b.channels(x) != c) ? b.conv_bn(x, c, 1, stride, 1, kNone, "downsample") : x;
  return b.act(b.add(y, sc), kRelu);
}

int bottleneck(NetBuilder& b, int x, int c, int stride) {
  int y = b.conv_bn(x, c, 1, 1, 1, kRelu, "conv1");
  y = b.conv_bn(y, c, 3, stride, 1, kRelu, "conv2");  // ResNet v1.5: stride on the 3x3
  y = b.conv_bn(y, 4 * c, 1, 1, 1, kNone, "conv3");
  int sc = (stride != 1 || b.channels(x) != 4 * c) ? b.conv_bn(x, 4 * c, 1, stride, 1, kNone, "downsample") : x;
  return b.act(b.add(y, sc), kRelu);
}

int fire_module(NetBuilder& b, int x, const std::string& name, int s, int e1, int e3) {
  b.scope(name);
  int sq = conv_relu(b, x, s, 1, 1, 0, "squeeze");
  return b.concat({conv_relu(b, sq, e1, 1, 1, 0, "expand1x1"), conv_relu(b, sq, e3, 3, 1, 1, "expand3x3")});
}

int inverted_residual(NetBuilder& b, int x, int out, int stride, int expand) {
  int in = b.channels(x), hidden = in * expand, y = x;
  if (expand != 1) y = b.conv_bn(y, hidden, 1, 1, 1, kRelu6, "expand");
  y = b.conv_bn(y, hidden, 3, stride, hidden, kRelu6, "depthwise");
  y = b.conv_bn(y, out, 1, 1, 1, kNone, "project");
  return (stride == 1 && in == out) ? b.add(y, x) : y;
}

int squeeze_excite(NetBuilder& b, int x) {
  int c = b.channels(x), sq = divisible(c / 4.f);
  int s = b.act(b.conv(b.global_avg_pool(x), sq, 1, 1, 0, 1, true, "se_fc1"), kRelu);
  s = b.act(b.conv(s, c, 1, 1, 0, 1, true, "se_fc2"), LayerKind::kHardSigmoid);
  return b.mul(x, s);
}

int v3_block(NetBuilder& b, int x, const V3Block& r, float width) {
  int in = b.channels(x), hidden = divisible(r.expand * width), out = divisible(r.out * width), y = x;
  if (hidden != in) y = b.conv_bn(y, hidden, 1, 1, 1, r.act, "expand");
  y = b.conv_bn(y, hidden, r.k, r.stride, hidden, r.act, "depthwise");
  if (r.se) y = squeeze_excite(b, y);
  y = b.conv_bn(y, out, 1, 1, 1, kNone, "project");
  return (r.stride == 1 && in == out) ? b.add(y, x) : y;
}

Network mobilenetv2_net(NetBuilder& b, int stem_stride, int stem, const std::vector<V2Row>& rows, float width,
                        int last, int classes) {
  b.scope("features.0");
  int x = b.conv_bn(0, stem, 3, stem_stride, 1, kRelu6, "conv");
  int block = 1;
  for (const V2Row& r : rows)
    for (int i = 0; i < r.repeats; ++i) {
      b.scope("features." + std::to_string(block++));
      x = inverted_residual(b, x, divisible(r.out * width), i == 0 ? r.stride : 1, r.expand);
    }
  b.scope("features." + std::to_string(block));
  x = b.conv_bn(x, last, 1, 1, 1, kRelu6, "conv");
  b.scope("classifier");
  b.fc(b.flatten(b.global_avg_pool(x)), classes);
  return b.finish();
}

Network mobilenetv3_net(NetBuilder& b, int stem_stride, const std::vector<V3Block>& rows, float width, int last,
                        int head, int classes) {
  b.scope("features.0");
  int x = b.conv_bn(0, divisible(16 * width), 3, stem_stride, 1, LayerKind::kHardSwish, "conv");
  int block = 1;
  for (const V3Block& r : rows) {
    b.scope("features." + std::to_string(block++));
    x = v3_block(b, x, r, width);
  }
  b.scope("features." + std::to_string(block));
  x = b.conv_bn(x, last, 1, 1, 1, LayerKind::kHardSwish, "conv");
  b.scope("classifier");
  x = b.act(b.fc(b.flatten(b.global_avg_pool(x)), head, true, "fc1"), LayerKind::kHardSwish);
  b.fc(x, classes, true, "fc2");
  return b.finish();
}

}  // namespace lw::zoo_blocks
