// Training through the IR with LibTorch: weights go back into the IR exactly, training is
// deterministic for a seed, it learns, and the trained weights (saved, reloaded, BatchNorm
// folded) give the reference executor the same predictions as LibTorch.
// LibTorch first: it pulls in glog, whose CHECK macros abort; the tests use doctest's.
#include "libs/torch/ir_module.h"
#include "tests/doctest_after_torch.h"

#include <algorithm>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "libs/data/fashion_mnist.h"
#include "libs/ir/network_json.h"
#include "libs/ref/reference.h"
#include "libs/torch/train.h"
#include "libs/zoo/zoo.h"
#include "libs/zoo/zoo_fmnist.h"

namespace lw {
namespace {

Network small_model(const std::string& name, uint64_t seed) {
  Network net;
  ZooOptions o;
  o.width = 0.5f;  // a quarter of the MACs: keeps this test fast
  REQUIRE(build_zoo_model(name, o, &net).is_ok());
  init_random_weights(net, seed);
  return net;
}

const FashionMnist& train_split() {
  static FashionMnist d = [] {
    FashionMnist x;
    Status s = load_fashion_mnist(Split::kTrain, &x);
    REQUIRE_MESSAGE(s.is_ok(), s.to_string());
    return x;
  }();
  return d;
}

TrainOptions smoke_options() {
  TrainOptions o;
  o.epochs = 2;
  o.batch = 64;
  o.limit_train = 640;  // 10 steps per epoch
  o.seed = 5;
  return o;
}

TEST_CASE("IrModule: weights and BatchNorm statistics round-trip into the IR exactly") {
  Network net = small_model("fmnist_mobilenetv3", 3), back = net;
  for (Layer& l : back.layers) std::fill(l.weights.begin(), l.weights.end(), 0.f);
  ir_torch::IrModule m;
  REQUIRE(ir_torch::IrModule::create(net, &m).is_ok());
  REQUIRE(m.export_to(&back).is_ok());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    CAPTURE(net.layers[i].name);
    CHECK(net.layers[i].weights == back.layers[i].weights);
    CHECK(net.layers[i].bias == back.layers[i].bias);
  }
  Network other = small_model("fmnist_resnet", 3);
  CHECK_FALSE(m.export_to(&other).is_ok());  // a different topology is refused
}

TEST_CASE("training learns, is deterministic, and exports BatchNorm running statistics") {
  Network a = small_model("fmnist_resnet", 5), b = a, init = a;
  TrainResult ra, rb;
  REQUIRE(train_fashion_mnist(&a, train_split(), smoke_options(), nullptr, &ra).is_ok());
  REQUIRE(train_fashion_mnist(&b, train_split(), smoke_options(), nullptr, &rb).is_ok());
  for (size_t i = 0; i < a.layers.size(); ++i) CHECK(a.layers[i].weights == b.layers[i].weights);  // same seed
  int bn = -1;
  for (size_t i = 0; i < a.layers.size() && bn < 0; ++i)
    if (a.layers[i].kind == LayerKind::kBatchNorm) bn = int(i);
  REQUIRE(bn >= 0);
  int c = a.layers[bn].out.c;
  // Running mean moved away from its initial value: statistics were tracked and exported.
  CHECK(a.layers[bn].weights[2 * c] != init.layers[bn].weights[2 * c]);
  REQUIRE(ra.epochs.size() == 2);
  MESSAGE("training loss per epoch: " << ra.epochs[0].loss << ", " << ra.epochs[1].loss);
  CHECK(ra.epochs[1].loss < ra.epochs[0].loss);  // a second pass over the same images fits them better

  // Two steps with another seed (data order, augmentation) against two with this one.
  TrainOptions two = smoke_options(), other = two;
  two.epochs = other.epochs = 1;
  two.limit_train = other.limit_train = 2 * two.batch;
  other.seed = two.seed + 1;
  Network s1 = init, s2 = init;
  REQUIRE(train_fashion_mnist(&s1, train_split(), two, nullptr, &rb).is_ok());
  REQUIRE(train_fashion_mnist(&s2, train_split(), other, nullptr, &rb).is_ok());
  CHECK(s1.layers[1].weights != s2.layers[1].weights);
}

TEST_CASE("trained weights load into the reference executor: same predictions as LibTorch") {
  Network net = small_model("fmnist_squeezenet", 7);
  TrainResult r;
  REQUIRE(train_fashion_mnist(&net, train_split(), smoke_options(), nullptr, &r).is_ok());
  std::string json = "/tmp/lw_test_train_" + std::to_string(::getpid()) + ".json";
  std::string weights = json.substr(0, json.size() - 5) + ".weights";
  REQUIRE(save_network(net, json, weights).is_ok());
  Network loaded, folded;
  REQUIRE(load_network(json, &loaded).is_ok());
  std::remove(json.c_str());
  std::remove(weights.c_str());
  REQUIRE(fold_affine(loaded, &folded).is_ok());

  FashionMnist test;
  REQUIRE(load_fashion_mnist(Split::kTest, &test).is_ok());
  const int n = 64;
  folded.layers[0].out.n = n;
  REQUIRE(infer_shapes(folded).is_ok());
  Tensor x = fashion_mnist_batch(test, 0, n);
  std::vector<Tensor> ref, tor;
  REQUIRE(reference_forward(folded, x, &ref).is_ok());
  Network unfolded = net;
  unfolded.layers[0].out.n = n;
  REQUIRE(infer_shapes(unfolded).is_ok());
  REQUIRE(ir_torch::torch_forward(unfolded, x, &tor).is_ok());
  double diff = 0, mag = 0;
  for (int64_t i = 0; i < ref.back().shape().elements(); ++i) {
    diff = std::max(diff, double(std::fabs(ref.back().f32()[i] - tor.back().f32()[i])));
    mag = std::max(mag, double(std::fabs(tor.back().f32()[i])));
  }
  CHECK(diff / mag <= 1e-4);  // same normalised measure as test_torch_ref
}

TEST_CASE("networks that do not fit Fashion-MNIST are refused") {
  Network net;
  REQUIRE(build_zoo_model("resnet18", ZooOptions{}, &net).is_ok());
  init_random_weights(net, 1);
  TrainResult r;
  Status s = train_fashion_mnist(&net, train_split(), smoke_options(), nullptr, &r);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("1x3x224x224") != std::string::npos);
}

}  // namespace
}  // namespace lw
