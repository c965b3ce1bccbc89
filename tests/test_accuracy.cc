// Accuracy and fidelity measures on hand-made forwards.
#include <doctest/doctest.h>

#include <cmath>

#include "explorer/measure/accuracy.h"

using namespace lw;

namespace {
// A fake "network": logits are the first 10 pixels of the image.
Status pixels_as_logits(const Tensor& x, Tensor* y) {
  *y = Tensor::create(Shape{1, 10, 1, 1});
  for (int i = 0; i < 10; ++i) y->f32()[i] = x.f32()[i];
  return Status::ok();
}

FashionMnist fake_data() {
  FashionMnist d;
  d.count = 4;
  d.pixels.assign(4 * 28 * 28, 0);
  d.labels = {3, 5, 0, 7};
  // Image i lights one pixel of its first row, at column bright[i]; the forward below reads
  // that row as logits, so it predicts bright[i]. Image 3 is labelled 7 but lights column 1.
  const int bright[] = {3, 5, 0, 1};
  for (int i = 0; i < 4; ++i) d.pixels[i * 784 + bright[i]] = 255;
  return d;
}
}  // namespace

TEST_CASE("top-1 accuracy counts argmax hits over the requested range") {
  FashionMnist d = fake_data();
  // The 28 x 28 image sits at (2, 2) on the 32 x 32 canvas: logits = image row 0, columns 0..9.
  Forward f = [](const Tensor& x, Tensor* y) {
    *y = Tensor::create(Shape{1, 10, 1, 1});
    for (int i = 0; i < 10; ++i) y->f32()[i] = x.f32()[2 * 32 + 2 + i];  // row 2 of the canvas = image row 0
    return Status::ok();
  };
  AccuracyReport r;
  REQUIRE(top1_accuracy(f, d, 0, 4, &r).is_ok());
  CHECK(r.top1 == doctest::Approx(0.75));
  CHECK(r.images == 4);
  REQUIRE(top1_accuracy(f, d, 0, 3, &r).is_ok());
  CHECK(r.top1 == doctest::Approx(1.0));
  CHECK_FALSE(top1_accuracy(f, d, 2, 5, &r).is_ok());
  CHECK(r.label().find("top-1") != std::string::npos);
}

TEST_CASE("fidelity: identical forwards agree fully with infinite SQNR, noise lowers it") {
  std::vector<Tensor> inputs;
  for (int k = 0; k < 5; ++k) {
    Tensor x = Tensor::create(Shape{1, 1, 4, 4});
    for (int i = 0; i < 16; ++i) x.f32()[i] = std::sin(1.3f * i + k);
    inputs.push_back(x);
  }
  AccuracyReport r;
  REQUIRE(fidelity(pixels_as_logits, pixels_as_logits, inputs, &r).is_ok());
  CHECK(r.top1 == 1.0);
  CHECK(std::isinf(r.sqnr_db));
  // 1 % relative noise on every logit: SQNR = 40 dB.
  Forward noisy = [](const Tensor& x, Tensor* y) {
    LW_RETURN_IF_ERROR(pixels_as_logits(x, y));
    for (int i = 0; i < 10; ++i) y->f32()[i] *= 1.01f;
    return Status::ok();
  };
  REQUIRE(fidelity(noisy, pixels_as_logits, inputs, &r).is_ok());
  CHECK(r.sqnr_db == doctest::Approx(40.0).epsilon(0.01));
  CHECK(r.top1 == 1.0);
  CHECK(r.label().find("fidelity") != std::string::npos);
}
