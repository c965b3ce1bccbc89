#include "tests/testers/tester.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "libs/quant/quant.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo.h"

namespace lw::testers {

void fill_uniform(std::vector<float>& v, std::mt19937_64& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& x : v) x = d(rng);
}

Tensor random_tensor(Shape s, std::mt19937_64& rng, float lo, float hi) {
  Tensor t = Tensor::create(s);
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < s.elements(); ++i) t.f32()[i] = d(rng);
  return t;
}

void fill_weights(Layer& l, const std::vector<Shape>& in, uint64_t seed) {
  std::mt19937_64 rng(seed);
  l.weights.resize(weight_count(l, in));
  fill_uniform(l.weights, rng, -0.5f, 0.5f);
  l.bias.clear();
  if (l.has_bias) {
    l.bias.resize(l.out_channels);
    fill_uniform(l.bias, rng, -0.5f, 0.5f);
  }
}

Network small_model(const std::string& name, int size) {
  Network raw, net;
  ZooOptions o;
  o.input = {1, 3, size, size};
  o.classes = 10;
  REQUIRE(build_zoo_model(name, o, &raw).is_ok());
  init_random_weights(raw, 3);
  REQUIRE(fold_affine(raw, &net).is_ok());
  return net;
}

Tensor to_float_dtype(const Tensor& t, DType to) {
  if (t.dtype() == to) return t;
  Tensor y = Tensor::create(t.shape(), to, t.layout());
  const int64_t n = stored_elements(t.shape(), t.layout());
  for (int64_t i = 0; i < n; ++i) {
    if (to == DType::kBF16) y.bf16()[i] = f32_to_bf16(t.f32()[i]);
    else y.f32()[i] = bf16_to_f32(t.bf16()[i]);
  }
  return y;
}

double tolerance(const ImplDesc& d) {
  if (d.dtype_in == DType::kI8) return kInt8Tolerance;
  if (d.dtype_in == DType::kBF16 || d.dtype_out == DType::kBF16) return kBf16Tolerance;
  if (d.algorithm == Algorithm::kWinogradF2 || d.algorithm == Algorithm::kWinogradF4 ||
      d.algorithm == Algorithm::kWinogradF6 || d.algorithm == Algorithm::kWinograd)
    return kWinogradTolerance;  // native F(2,3) / F(4,3) / F(6,3) / F(2,5) / F(4,5), oneDNN's own
  return kF32Tolerance;
}

double output_error(const Tensor& got, const Tensor& want) {
  REQUIRE(got.shape() == want.shape());
  const Tensor g = to_layout(got, Layout::kNCHW);
  const int64_t n = want.shape().elements();
  if (want.dtype() == DType::kI8) {
    int worst = 0;
    for (int64_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(int(g.i8()[i]) - int(want.i8()[i])));
    return worst;
  }
  const Tensor gf = to_float_dtype(g, DType::kF32);
  double err = 0, scale = 1e-6;
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(double(gf.f32()[i]) - want.f32()[i]);
    // std::max would drop a NaN, hiding outputs left at the poison.
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    err = std::max(err, d);
    scale = std::max(scale, double(std::fabs(want.f32()[i])));
  }
  return err / scale;
}

std::vector<Shape> reshaped(const Layer& layer, const std::vector<Shape>& in) {
  auto side = [](int x) { return x == 1 ? 1 : x > 24 ? x / 2 + 1 : x + 2; };
  std::vector<Shape> out;
  for (Shape s : in) {
    s.n = s.n == 1 ? 2 : 1;
    if (layer.kind != LayerKind::kFullyConnected) s.h = side(s.h), s.w = side(s.w);
    out.push_back(s);
  }
  return out;
}

std::vector<ImplDesc> descriptors(const Registry& r, Library lib, LayerKind op) {
  std::vector<ImplDesc> v;
  for (const ImplEntry& e : r.entries())
    if (e.desc.library == lib && e.desc.op == op) v.push_back(e.desc);
  return v;
}

namespace {

std::vector<Shape> shapes_of(const std::vector<Tensor>& in) {
  std::vector<Shape> s;
  for (const Tensor& t : in) s.push_back(t.shape());
  return s;
}

// Inputs of the reshaped run: `in`'s values in a scattered order (7919 is prime), so the
// data keep their range (int8 keeps the quantisation of create) but are not a copy.
std::vector<Tensor> resample(const std::vector<Tensor>& in, const std::vector<Shape>& to) {
  std::vector<Tensor> out;
  for (size_t k = 0; k < in.size(); ++k) {
    Tensor t = Tensor::create(to[k]);
    const int64_t n = in[k].shape().elements();
    for (int64_t i = 0; i < to[k].elements(); ++i) t.f32()[i] = in[k].f32()[i * 7919 % n];
    out.push_back(t);
  }
  return out;
}

QuantParams range_params(const Tensor& t) {
  auto [lo, hi] = std::minmax_element(t.f32(), t.f32() + t.shape().elements());
  return choose_quant_params(*lo, *hi);
}

// The quantisation of an int8 case, chosen at create and kept through the reshape.
struct Quant {
  std::vector<QuantParams> in;  // one per input, each with its own range
  QuantParams out;
};

// The inputs quantised with `q` and dequantised again: what an int8 layer really sees.
std::vector<Tensor> dequantised(const std::vector<Tensor>& in, const Quant& q) {
  std::vector<Tensor> d;
  for (size_t k = 0; k < in.size(); ++k) d.push_back(dequantize_tensor(quantize_tensor(in[k], q.in[k])));
  return d;
}

Tensor reference_of(const Layer& layer, const std::vector<Tensor>& in) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : in) ptrs.push_back(&t);
  Tensor y;
  REQUIRE(reference_layer(layer, ptrs, &y).is_ok());
  return y;
}

Quant choose_quant(const Layer& layer, const std::vector<Tensor>& in, ReferenceCache* cache) {
  const std::string key = to_string(layer.fused_activation);
  if (cache && cache->quant.count(key)) return {cache->quant[key].first, cache->quant[key].second};
  Quant q;
  for (const Tensor& t : in) q.in.push_back(range_params(t));
  // Output params: the f32 layer on the dequantised inputs, as calibration would see it.
  // Pooling writes in its input's quantisation (libs/ops/primitive.h).
  q.out = int8_keeps_input_quant(layer.kind) ? q.in[0] : range_params(reference_of(layer, dequantised(in, q)));
  if (cache) cache->quant[key] = {q.in, q.out};
  return q;
}

// One run's inputs, in the implementation's layout and dtype, and the output it must give.
struct Prepared {
  std::vector<Tensor> xs;
  Tensor want;
};

Prepared prepare(const ImplDesc& d, const Layer& layer, const std::vector<Tensor>& in, const Quant& q,
                 ReferenceCache* cache) {
  Prepared c;
  const bool int8 = d.dtype_in == DType::kI8;
  const WeightQuantization wq = weight_quantization(d.algorithm);
  std::string key = std::string(to_string(layer.fused_activation)) +
                    (!int8 ? "/f32" : wq.per_channel ? "/qc" + std::to_string(wq.qmax) : "/qt");
  for (const Tensor& t : in) key += "/" + t.shape().to_string();
  if (!int8) {
    for (const Tensor& t : in) c.xs.push_back(to_float_dtype(to_layout(t, d.layout_in), d.dtype_in));
  } else {
    for (size_t k = 0; k < in.size(); ++k) c.xs.push_back(to_layout(quantize_tensor(in[k], q.in[k]), d.layout_in));
  }
  auto hit = cache ? cache->want.find(key) : decltype(cache->want)::iterator{};
  if (cache && hit != cache->want.end()) {
    c.want = hit->second;
    return c;
  }
  if (!int8) {
    std::vector<const Tensor*> ref_in;
    for (const Tensor& t : in) ref_in.push_back(&t);
    REQUIRE(reference_layer(layer, ref_in, &c.want).is_ok());
  } else if (layer.kind != LayerKind::kConv2d && layer.kind != LayerKind::kFullyConnected) {
    // Without weights (pooling, concat): the f32 reference on the dequantised inputs, quantised.
    c.want = quantize_tensor(reference_of(layer, dequantised(in, q)), q.out);
  } else {
    QuantizedWeights w = quantize_weights(layer.weights, layer.out_channels, wq.per_channel, wq.qmax);
    Tensor xq = quantize_tensor(in[0], q.in[0]);
    Status s = layer.kind == LayerKind::kConv2d ? reference_conv_int8(layer, w, xq, q.out, &c.want)
                                                : reference_fc_int8(layer, w, xq, q.out, &c.want);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
  }
  if (cache) cache->want[key] = c.want;
  return c;
}

// An output buffer followed by guard bytes. Both are poisoned with 0xff (a NaN in f32 and
// bf16) before every run; the guard must stay so (JIT kernels that store whole vectors
// past a blocked tensor's end were found this way).
class GuardedOutput {
 public:
  static constexpr size_t kGuard = 4096;
  GuardedOutput(const Shape& s, DType dt, Layout l)
      : bytes_(tensor_bytes(s, dt, l)), backing_(Tensor::create({1, 1, 1, int((bytes_ + kGuard) / 4 + 1)})),
        out_(Tensor::view(base(), s, dt, l)) {}
  void poison() { std::memset(base(), 0xff, bytes_ + kGuard); }
  size_t overrun() const {
    size_t past = 0;
    for (size_t i = bytes_; i < bytes_ + kGuard; ++i) past += static_cast<const unsigned char*>(backing_.data())[i] != 0xff;
    return past;
  }
  size_t bytes() const { return bytes_; }
  Tensor& tensor() { return out_; }
  // Elements of a blocked f32 / bf16 output's padding channels that are not +0: a consumer
  // multiplies them by its zero-padded weights, and a poison NaN times 0 is NaN.
  int64_t nonzero_padding() const {
    const Shape& s = out_.shape();
    const int b = layout_block(out_.layout()), blocks = (s.c + b - 1) / b;
    const size_t elt = out_.dtype() == DType::kBF16 ? 2 : 4;
    const auto* p = static_cast<const unsigned char*>(backing_.data());
    const int64_t hw = int64_t(s.h) * s.w;
    int64_t bad = 0;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t q = 0; q < hw; ++q)
        for (int l = s.c - (blocks - 1) * b; l < b; ++l) {
          const size_t at = size_t(((n * blocks + blocks - 1) * hw + q) * b + l) * elt;
          bad += std::any_of(p + at, p + at + elt, [](unsigned char x) { return x != 0; });
        }
    return bad;
  }

 private:
  unsigned char* base() { return static_cast<unsigned char*>(backing_.data()); }
  size_t bytes_;
  Tensor backing_, out_;
};

// setup, then `runs` runs, each on a freshly poisoned output and workspace (a primitive may
// keep nothing in either between runs); returns the worst error.
double setup_and_run(Primitive& p, const ImplDesc& d, Prepared& c, int runs, const char* stage) {
  INFO(stage);
  REQUIRE(p.output_shape() == c.want.shape());
  GuardedOutput out(p.output_shape(), d.dtype_out, d.layout_out);
  std::vector<unsigned char> ws(p.workspace_bytes() + 1);
  std::vector<const void*> ptrs;
  for (const Tensor& t : c.xs) ptrs.push_back(t.data());
  Status s = p.setup(ptrs, out.tensor().data(), ws.data());
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  double worst = 0;
  for (int k = 0; k < runs; ++k) {
    out.poison();
    std::fill(ws.begin(), ws.end(), 0xff);
    s = p.run();
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    INFO("run ", k + 1, " wrote ", out.overrun(), " bytes past its ", out.bytes(), "-byte output");
    CHECK(out.overrun() == 0);
    if (layout_block(d.layout_out) > 1 && d.dtype_out != DType::kI8) {
      INFO("run ", k + 1, " left ", out.nonzero_padding(), " padding channel elements of its blocked output nonzero");
      CHECK(out.nonzero_padding() == 0);
    }
    worst = std::max(worst, output_error(out.tensor(), c.want));
  }
  return worst;
}

}  // namespace

Outcome run_case(const Registry& r, const ImplDesc& d, const Layer& layer, const std::vector<Tensor>& in,
                 ReferenceCache* cache) {
  Outcome o;
  const std::vector<Shape> shapes = shapes_of(in);
  if (!r.supports(d, layer, shapes).is_ok()) return o;
  o.supported = true;
  const bool int8 = d.dtype_in == DType::kI8;
  const Quant q = int8 ? choose_quant(layer, in, cache) : Quant{};
  Prepared c = prepare(d, layer, in, q, cache);
  std::unique_ptr<Primitive> p;
  Status s = r.create({d, &layer, shapes, q.in, q.out}, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());  // Registry::create is create + reshape
  o.error = setup_and_run(*p, d, c, 2, "create -> reshape -> setup -> run -> run");
  const std::vector<Tensor> in2 = resample(in, reshaped(layer, shapes));
  const std::vector<Shape> shapes2 = shapes_of(in2);
  Shape out2;  // a window larger than the new input, or an implementation that refuses it
  if (!infer_layer_shape(layer, shapes2, &out2).is_ok() || !r.supports(d, layer, shapes2).is_ok()) return o;
  s = p->reshape(shapes2);
  REQUIRE_MESSAGE(s.is_ok(), "reshape to ", shapes2[0].to_string(), ": ", s.message());
  Prepared c2 = prepare(d, layer, in2, q, cache);
  o.error = std::max(o.error, setup_and_run(*p, d, c2, 1, "reshape to another shape -> setup -> run"));
  o.reshaped = true;
  return o;
}

Outcome check_case(const Registry& r, const ImplDesc& d, const Layer& layer, const std::vector<Tensor>& in, double tol,
                   ReferenceCache* cache) {
  std::string shapes;
  for (const Tensor& t : in) shapes += (shapes.empty() ? "" : ", ") + t.shape().to_string();
  INFO(d.name(), " on ", shapes);
  Outcome o = run_case(r, d, layer, in, cache);
  if (!o.supported) return o;
  INFO("error ", o.error);
  CHECK(o.error <= (tol < 0 ? tolerance(d) : tol));
  return o;
}

}  // namespace lw::testers
