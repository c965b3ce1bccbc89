// Native non-conv layers (every registered descriptor) against the reference executor.
#include <cmath>
#include <cstring>
#include <map>

#include "libs/native/kernels.h"
#include "libs/native/native.h"
#include "libs/quant/quant.h"
#include "tests/testers/layer_testers.h"

using namespace lw;
using namespace lw::testers;

TEST_CASE("native layers match the reference") {
  Registry r;
  register_native(r);
  std::map<std::string, int> tested, reshaped;
  std::mt19937_64 rng(3);
  for (const LayerCase& c : layer_cases())
    for (const ImplDesc& d : descriptors(r, Library::kNative, c.layer.kind)) {
      if (d.algorithm == Algorithm::kFused) continue;
      // Native layers compute much as the reference does: held ten times tighter than f32's
      // bound; int8 within one quantisation step of the int8 reference (tester.h), as every
      // int8 implementation.
      Outcome o = check_case(r, d, c.layer, case_inputs(c, rng), d.dtype_in == DType::kI8 ? kInt8Tolerance : 1e-5);
      CHECK(o.supported);  // every case here is supported
      ++tested[d.name()];
      reshaped[d.name()] += o.reshaped;
    }
  int descriptors = 0;
  for (const ImplEntry& e : r.entries())
    if (e.desc.op != LayerKind::kConv2d && e.desc.algorithm != Algorithm::kFused) {
      ++descriptors;
      INFO(e.desc.name());
      CHECK(tested[e.desc.name()] >= 4);
      CHECK(reshaped[e.desc.name()] >= 4);
    }
  // kinds x layouts x thread sets, layer norm's nChw16c / nChw8c, the int8 concat and the six
  // int8 activations
  CHECK(descriptors == 19 * 2 * 2 + 2 * 2 + 2 * 2 + 6 * 2 * 2);
}

// The 4-lane forms of the activations (kernels.h) against their scalar forms, bit for bit
// (any NaN for a NaN): on NaNs, zeros of both signs, infinities, the clamps' edges and random values; spans of every
// length mod 4, in place and not, alone and after a broadcast or elementwise add / multiply.
template <typename F>
static void check_lanes(F f, const std::vector<float>& a, const std::vector<float>& b) {
  // (Which NaN an add of two NaNs returns depends on the operand order the compiler picked.)
  auto same = [](float x, float y) { return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, 4) == 0; };
  for (int64_t n : {int64_t(1), int64_t(3), int64_t(4), int64_t(5), int64_t(8), int64_t(13), int64_t(a.size())}) {
    const size_t m = size_t(n);
    std::vector<float> y(m), in_place(a.begin(), a.begin() + n), yb(m), yk(m), yt(m);
    native::act_span(a.data(), y.data(), n, f);
    native::act_span(in_place.data(), in_place.data(), n, f);
    native::op_act_span(a.data(), b.data(), 1, yb.data(), n, native::Plus{}, f);
    native::op_act_span(a.data(), b.data() + 3, 0, yk.data(), n, native::Plus{}, f);
    native::op_act_span(a.data(), b.data(), 1, yt.data(), n, native::Times{}, f);
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = size_t(i);
      wrong += !same(y[k], f(a[k])) + !same(in_place[k], f(a[k])) + !same(yb[k], f(a[k] + b[k]));
      wrong += !same(yk[k], f(a[k] + b[3])) + !same(yt[k], f(a[k] * b[k]));
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("native activations' 4-lane forms equal their scalar forms bit for bit") {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<float> u(-9.f, 9.f);
  std::vector<float> a = {NAN, -NAN, 0.f, -0.f, INFINITY, -INFINITY, -3.f, 3.f, 6.f, -6.f, 1e-40f, -1e-40f, 5.9999995f, -2.9999998f};
  while (a.size() < 67) a.push_back(u(rng));
  std::vector<float> b(a.size());
  for (float& v : b) v = u(rng);
  b[0] = -0.f, b[1] = NAN, b[4] = -INFINITY;
  check_lanes(native::ActNone{}, a, b);
  check_lanes(native::ActRelu{}, a, b);
  check_lanes(native::ActRelu6{}, a, b);
  check_lanes(native::ActHardSwish{}, a, b);
  check_lanes(native::ActHardSigmoid{}, a, b);
  check_lanes(native::ActSigmoid{}, a, b);  // (scalar only)
}

TEST_CASE("native int8 concat: inputs in the output's quantisation copied, others requantised, exactly") {
  Registry r;
  register_native(r);
  std::mt19937_64 rng(8);
  const Layer concat = simple_layer(LayerKind::kConcat, 3);
  const std::vector<Shape> shapes = {{2, 5, 3, 7}, {2, 16, 3, 7}, {2, 1, 3, 7}};
  // Input 0 in the output's quantisation (the copy), 1 and 2 in their own (the tables).
  const QuantParams out_q = choose_quant_params(-3.f, 3.f);
  const std::vector<QuantParams> in_q = {out_q, choose_quant_params(0.f, 1.f), choose_quant_params(-9.f, 2.f)};
  std::vector<Tensor> xq;
  for (size_t k = 0; k < shapes.size(); ++k) xq.push_back(quantize_tensor(random_tensor(shapes[k], rng, -9.f, 9.f), in_q[k]));
  for (const ImplDesc& d : descriptors(r, Library::kNative, LayerKind::kConcat)) {
    if (d.dtype_in != DType::kI8) continue;
    INFO(d.name());
    std::unique_ptr<Primitive> p;
    REQUIRE(r.create({d, &concat, shapes, in_q, out_q}, &p).is_ok());
    std::vector<Tensor> x;
    std::vector<const void*> ptrs;
    for (const Tensor& t : xq) x.push_back(to_layout(t, d.layout_in));
    for (const Tensor& t : x) ptrs.push_back(t.data());
    Tensor y = Tensor::create(p->output_shape(), DType::kI8, d.layout_out);
    REQUIRE(p->setup(ptrs, y.data(), nullptr).is_ok());
    REQUIRE(p->run().is_ok());
    const Tensor got = to_layout(y, Layout::kNCHW);
    int c0 = 0, wrong = 0;
    for (size_t k = 0; k < shapes.size(); ++k) {
      for (int n = 0; n < 2; ++n)
        for (int c = 0; c < shapes[k].c; ++c)
          for (int h = 0; h < 3; ++h)
            for (int w = 0; w < 7; ++w) {
              const int8_t q = xq[k].i8()[xq[k].offset(n, c, h, w)];
              wrong += got.i8()[got.offset(n, c0 + c, h, w)] != quantize_value(dequantize_value(q, in_q[k]), out_q);
            }
      c0 += shapes[k].c;
    }
    CHECK(wrong == 0);
    // Without every input's quantisation it cannot requantise: refused.
    CHECK(r.create({d, &concat, shapes, {out_q}, out_q}, &p).code() == StatusCode::kInvalidArgument);
  }
}
