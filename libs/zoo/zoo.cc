#include "libs/zoo/zoo.h"

#include <algorithm>
#include <cmath>

#include "libs/zoo/zoo_blocks.h"
#include "libs/zoo/zoo_builder.h"
#include "libs/zoo/zoo_fmnist.h"

namespace lw {
namespace {

using namespace zoo_blocks;

constexpr LayerKind kRelu = LayerKind::kRelu;
constexpr LayerKind kHSwish = LayerKind::kHardSwish;

int scaled(int c, const ZooOptions& o) { return std::max(1, int(std::lround(c * o.width))); }

int fire(NetBuilder& b, int x, const std::string& name, int s, int e1, int e3, const ZooOptions& o) {
  return fire_module(b, x, name, scaled(s, o), scaled(e1, o), scaled(e3, o));
}

Network alexnet(const ZooOptions& o) {
  NetBuilder b("alexnet", o.input);
  b.scope("features");
  int x = conv_relu(b, 0, scaled(64, o), 11, 4, 2);
  x = b.max_pool(x, 3, 2);
  x = conv_relu(b, x, scaled(192, o), 5, 1, 2);
  x = b.max_pool(x, 3, 2);
  x = conv_relu(b, x, scaled(384, o), 3);
  x = conv_relu(b, x, scaled(256, o), 3);
  x = conv_relu(b, x, scaled(256, o), 3);
  x = b.max_pool(x, 3, 2);
  b.scope("classifier");
  x = b.act(b.fc(b.flatten(x), scaled(4096, o)), kRelu);
  x = b.act(b.fc(x, scaled(4096, o)), kRelu);
  b.fc(x, o.classes);
  return b.finish();
}

Network vgg16(const ZooOptions& o) {
  NetBuilder b("vgg16", o.input);
  const int cfg[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  b.scope("features");
  int x = 0;
  for (int c : cfg) x = c ? conv_relu(b, x, scaled(c, o), 3) : b.max_pool(x, 2, 2);
  b.scope("classifier");
  x = b.act(b.fc(b.flatten(x), scaled(4096, o)), kRelu);
  x = b.act(b.fc(x, scaled(4096, o)), kRelu);
  b.fc(x, o.classes);
  return b.finish();
}

// GoogLeNet as in Szegedy et al. 2015 (5x5 branch, conv + bias + ReLU). LRN is left out:
// it has no parameters and no modern deployment keeps it.
int inception(NetBuilder& b, int x, const std::string& name, int c1, int c3r, int c3, int c5r, int c5, int pp,
              const ZooOptions& o) {
  b.scope(name);
  int b1 = conv_relu(b, x, scaled(c1, o), 1, 1, 0, "branch1");
  int b2 = conv_relu(b, conv_relu(b, x, scaled(c3r, o), 1, 1, 0, "branch2_reduce"), scaled(c3, o), 3, 1, 1, "branch2");
  int b3 = conv_relu(b, conv_relu(b, x, scaled(c5r, o), 1, 1, 0, "branch3_reduce"), scaled(c5, o), 5, 1, 2, "branch3");
  int b4 = conv_relu(b, b.max_pool(x, 3, 1, 1, true), scaled(pp, o), 1, 1, 0, "branch4");
  return b.concat({b1, b2, b3, b4});
}

Network googlenet(const ZooOptions& o) {
  NetBuilder b("googlenet", o.input);
  b.scope("stem");
  int x = conv_relu(b, 0, scaled(64, o), 7, 2, 3, "conv1");
  x = b.max_pool(x, 3, 2, 0, true);
  x = conv_relu(b, x, scaled(64, o), 1, 1, 0, "conv2");
  x = conv_relu(b, x, scaled(192, o), 3, 1, 1, "conv3");
  x = b.max_pool(x, 3, 2, 0, true);
  x = inception(b, x, "inception3a", 64, 96, 128, 16, 32, 32, o);
  x = inception(b, x, "inception3b", 128, 128, 192, 32, 96, 64, o);
  x = b.max_pool(x, 3, 2, 0, true);
  x = inception(b, x, "inception4a", 192, 96, 208, 16, 48, 64, o);
  x = inception(b, x, "inception4b", 160, 112, 224, 24, 64, 64, o);
  x = inception(b, x, "inception4c", 128, 128, 256, 24, 64, 64, o);
  x = inception(b, x, "inception4d", 112, 144, 288, 32, 64, 64, o);
  x = inception(b, x, "inception4e", 256, 160, 320, 32, 128, 128, o);
  x = b.max_pool(x, 3, 2, 0, true);
  x = inception(b, x, "inception5a", 256, 160, 320, 32, 128, 128, o);
  x = inception(b, x, "inception5b", 384, 192, 384, 48, 128, 128, o);
  b.scope("head");
  b.fc(b.flatten(b.global_avg_pool(x)), o.classes);
  return b.finish();
}

Network resnet(const std::string& name, const int* blocks, bool deep, const ZooOptions& o) {
  NetBuilder b(name, o.input);
  b.scope("stem");
  int x = b.conv_bn(0, scaled(64, o), 7, 2, 1, kRelu, "conv1");
  x = b.max_pool(x, 3, 2, 1);
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < blocks[stage]; ++i) {
      b.scope("layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      int c = scaled(64 << stage, o), s = (stage > 0 && i == 0) ? 2 : 1;
      x = deep ? bottleneck(b, x, c, s) : basic_block(b, x, c, s);
    }
  b.scope("head");
  b.fc(b.flatten(b.global_avg_pool(x)), o.classes);
  return b.finish();
}
const int kResnet18[] = {2, 2, 2, 2};
const int kResnet50[] = {3, 4, 6, 3};
Network resnet18(const ZooOptions& o) { return resnet("resnet18", kResnet18, false, o); }
Network resnet50(const ZooOptions& o) { return resnet("resnet50", kResnet50, true, o); }

Network squeezenet11(const ZooOptions& o) {
  NetBuilder b("squeezenet1_1", o.input);
  b.scope("features");
  int x = conv_relu(b, 0, scaled(64, o), 3, 2, 0);
  x = b.max_pool(x, 3, 2, 0, true);
  x = fire(b, x, "fire2", 16, 64, 64, o);
  x = fire(b, x, "fire3", 16, 64, 64, o);
  b.scope("features");
  x = b.max_pool(x, 3, 2, 0, true);
  x = fire(b, x, "fire4", 32, 128, 128, o);
  x = fire(b, x, "fire5", 32, 128, 128, o);
  b.scope("features");
  x = b.max_pool(x, 3, 2, 0, true);
  x = fire(b, x, "fire6", 48, 192, 192, o);
  x = fire(b, x, "fire7", 48, 192, 192, o);
  x = fire(b, x, "fire8", 64, 256, 256, o);
  x = fire(b, x, "fire9", 64, 256, 256, o);
  b.scope("classifier");
  x = conv_relu(b, x, o.classes, 1, 1, 0);
  b.flatten(b.global_avg_pool(x));
  return b.finish();
}

Network mobilenetv2(const ZooOptions& o) {
  NetBuilder b("mobilenetv2", o.input);
  return mobilenetv2_net(b, 2, divisible(32 * o.width),
                         {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2},
                          {6, 320, 1, 1}},
                         o.width, divisible(1280 * std::max(1.0f, o.width)), o.classes);
}

Network mobilenetv3_large(const ZooOptions& o) {
  const LayerKind RE = kRelu, HS = kHSwish;
  NetBuilder b("mobilenetv3_large", o.input);
  return mobilenetv3_net(b, 2,
                         {{3, 16, 16, false, RE, 1},   {3, 64, 24, false, RE, 2},   {3, 72, 24, false, RE, 1},
                          {5, 72, 40, true, RE, 2},    {5, 120, 40, true, RE, 1},   {5, 120, 40, true, RE, 1},
                          {3, 240, 80, false, HS, 2},  {3, 200, 80, false, HS, 1},  {3, 184, 80, false, HS, 1},
                          {3, 184, 80, false, HS, 1},  {3, 480, 112, true, HS, 1},  {3, 672, 112, true, HS, 1},
                          {5, 672, 160, true, HS, 2},  {5, 960, 160, true, HS, 1},  {5, 960, 160, true, HS, 1}},
                         o.width, divisible(960 * o.width), divisible(1280 * o.width), o.classes);
}

Network mobilenetv3_small(const ZooOptions& o) {
  const LayerKind RE = kRelu, HS = kHSwish;
  NetBuilder b("mobilenetv3_small", o.input);
  return mobilenetv3_net(b, 2,
                         {{3, 16, 16, true, RE, 2},   {3, 72, 24, false, RE, 2},  {3, 88, 24, false, RE, 1},
                          {5, 96, 40, true, HS, 2},   {5, 240, 40, true, HS, 1},  {5, 240, 40, true, HS, 1},
                          {5, 120, 48, true, HS, 1},  {5, 144, 48, true, HS, 1},  {5, 288, 96, true, HS, 2},
                          {5, 576, 96, true, HS, 1},  {5, 576, 96, true, HS, 1}},
                         o.width, divisible(576 * o.width), divisible(1024 * o.width), o.classes);
}

}  // namespace

const std::vector<ZooEntry>& zoo_models() {
  static const std::vector<ZooEntry> kZoo = {
      {"alexnet", "AlexNet (torchvision, one tower)", alexnet},
      {"vgg16", "VGG-16 (configuration D)", vgg16},
      {"googlenet", "GoogLeNet / Inception v1 (paper, no LRN, no aux heads)", googlenet},
      {"resnet18", "ResNet-18", resnet18},
      {"resnet50", "ResNet-50 v1.5 (stride on the 3x3)", resnet50},
      {"squeezenet1_1", "SqueezeNet 1.1", squeezenet11},
      {"mobilenetv2", "MobileNetV2 (width 1.0)", mobilenetv2},
      {"mobilenetv3_small", "MobileNetV3-Small", mobilenetv3_small},
      {"mobilenetv3_large", "MobileNetV3-Large", mobilenetv3_large},
  };
  return kZoo;
}

std::string zoo_names() {
  std::string s;
  for (const auto& e : zoo_models()) s += (s.empty() ? "" : ", ") + std::string(e.name);
  for (const auto& e : fmnist_models()) s += ", " + std::string(e.name);
  return s;
}

Status build_zoo_model(const std::string& name, const ZooOptions& options, Network* out) {
  for (const auto* list : {&zoo_models(), &fmnist_models()})
    for (const auto& e : *list)
      if (name == e.name) {
        *out = e.build(options);
        return Status::ok();
      }
  return {StatusCode::kNotFound, "unknown zoo model '" + name + "' (known: " + zoo_names() + ")"};
}

}  // namespace lw
