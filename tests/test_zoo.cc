// The zoo must match the published models: parameter counts (torchvision) and MACs.
#include <doctest/doctest.h>

#include <cmath>

#include "libs/zoo/zoo.h"

using namespace lw;

namespace {
struct Published {
  const char* name;
  int64_t params;  // exact torchvision parameter count (GoogLeNet: paper topology, see zoo.cc)
  double gmacs;    // published multiply-accumulates at 224x224
  double macs_tolerance;
};
// Params: torchvision model cards. MACs: papers / torchvision model cards (GMACs rounded).
const Published kPublished[] = {
    {"alexnet", 61100840, 0.714, 0.02},       {"vgg16", 138357544, 15.47, 0.02},
    {"resnet18", 11689512, 1.814, 0.02},      {"resnet50", 25557032, 4.09, 0.02},
    {"squeezenet1_1", 1235496, 0.349, 0.03},  {"mobilenetv2", 3504872, 0.300, 0.03},
    {"mobilenetv3_large", 5483032, 0.217, 0.03}, {"mobilenetv3_small", 2542856, 0.056, 0.03},
    
};
}  // namespace

TEST_CASE("zoo models match published parameter counts and MACs") {
  CHECK(zoo_models().size() == 9);
  for (const auto& p : kPublished) {
    CAPTURE(p.name);
    Network net;
    REQUIRE(build_zoo_model(p.name, ZooOptions{}, &net).is_ok());
    CHECK(total_params(net) == p.params);
    double gmacs = total_macs(net) / 1e9;
    CHECK(std::abs(gmacs - p.gmacs) / p.gmacs <= p.macs_tolerance);
    CHECK(net.output_shape() == Shape{1, 1000, 1, 1});
  }
}

TEST_CASE("GoogLeNet follows the paper's topology") {
  // Szegedy et al. 2015, Table 1: about 6.8 M parameters (per-layer figures rounded) and
  // 1.5 G multiply-adds. Ours also counts biases and keeps the 5x5 branch torchvision dropped.
  Network net;
  REQUIRE(build_zoo_model("googlenet", ZooOptions{}, &net).is_ok());
  CHECK(std::abs(total_params(net) / 6.8e6 - 1) <= 0.04);
  CHECK(std::abs(total_macs(net) / 1.5e9 - 1) <= 0.06);
  CHECK(net.output_shape() == Shape{1, 1000, 1, 1});
}

TEST_CASE("zoo output shapes follow ZooOptions") {
  ZooOptions o;
  o.input = Shape{1, 1, 32, 32};
  o.classes = 10;
  o.width = 0.5f;
  for (const auto& e : zoo_models()) {
    CAPTURE(e.name);
    if (std::string(e.name) == "alexnet" || std::string(e.name) == "vgg16" || std::string(e.name) == "googlenet")
      continue;  // their stems need >= 64 px inputs
    Network net = e.build(o);
    CHECK(net.output_shape() == Shape{1, 10, 1, 1});
  }
}

TEST_CASE("unknown zoo model is a not-found status naming the known ones") {
  Network net;
  Status s = build_zoo_model("resnet51", ZooOptions{}, &net);
  CHECK(s.code() == StatusCode::kNotFound);
  CHECK(s.message().find("resnet50") != std::string::npos);
}
